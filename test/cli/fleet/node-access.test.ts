import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { formatFingerprint, installerUrlProblem, parseFingerprint, resolveCode } from "../../../cli/fleet/node-access.ts";
import { tempDir } from "../../helpers/installer.ts";

const HEX = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
const COLONS = HEX.toUpperCase().match(/../g)!.join(":");

describe("fleet: how a node is reached", () => {
  const fingerprints: Array<[string, string | undefined]> = [
    [HEX, HEX],
    [HEX.toUpperCase(), HEX],
    [COLONS, HEX],
    [COLONS.toLowerCase(), HEX],
    [` ${COLONS} `, HEX],
    [HEX.slice(2), undefined],
    [`${HEX}00`, undefined],
    [COLONS.replace(":", ""), undefined],
    [COLONS.replaceAll(":", "-"), undefined],
    ["zz".repeat(32), undefined],
    ["", undefined],
  ];
  for (const [text, expected] of fingerprints) {
    it(`fingerprint ${JSON.stringify(text.slice(0, 24))}… → ${expected ? "the SHA-256" : "refused"}`, () => assert.equal(parseFingerprint(text), expected));
  }

  it("a fingerprint is shown as the banner prints it", () => assert.equal(formatFingerprint(HEX), COLONS));

  const urls: Array<[string, RegExp | undefined]> = [
    ["https://10.20.0.11:9443", undefined],
    ["https://10.20.0.11:9443/", undefined],
    ["https://[fd00::11]:9443", undefined],
    ["http://10.20.0.11:9443", /not https/],
    ["10.20.0.11:9443", /not (a URL|https)/],
    ["https://10.20.0.11:9443/v1/installer", /more than https:\/\/host:port/],
    ["https://user:pw@10.20.0.11:9443", /more than/],
    ["https://10.20.0.11:0", /port 0 is no installer's: give the port its banner names \(9443 unless --listen said otherwise\)/],
  ];
  for (const [url, problem] of urls) {
    it(`installer ${url}`, () => {
      const found = installerUrlProblem(url);
      if (problem) assert.match(found ?? "", problem);
      else assert.equal(found, undefined);
    });
  }

  it("install codes: env:, file: (the first line, relative to the plan) or the code itself", async () => {
    const folder = await tempDir("stratum-codes-");
    await writeFile(join(folder, "code"), "  K7QX-M2PD  \nanything else\n");
    await writeFile(join(folder, "empty"), "\n");
    assert.deepEqual(await resolveCode("env:CODE", folder, { CODE: "A-B" }), { ok: true, code: "A-B" });
    assert.deepEqual(await resolveCode("file:code", folder, {}), { ok: true, code: "K7QX-M2PD" });
    assert.deepEqual(await resolveCode("K7QX", folder, {}), { ok: true, code: "K7QX" });
    assert.match((await resolveCode("env:CODE", folder, {}) as { problem: string }).problem, /CODE is not set/);
    assert.match((await resolveCode("env:CODE", folder, { CODE: " " }) as { problem: string }).problem, /CODE is not set/);
    assert.match((await resolveCode("file:empty", folder, {}) as { problem: string }).problem, /is empty/);
    assert.match((await resolveCode("file:none", folder, {}) as { problem: string }).problem, /cannot read/);
  });

  it("an install code with a character no code has (a typographic dash from a copy, a control character, a letter beyond ASCII) is a problem of the plan, from every source: never sent", async () => {
    const folder = await tempDir("stratum-codes-");
    await writeFile(join(folder, "code"), "X364\u2013BRCG\u2013K6T\n");
    const cases: Array<[string, NodeJS.ProcessEnv, RegExp]> = [
      ["X364\u2013BRCG\u2013K6T", {}, /U\+2013/],
      ["env:CODE", { CODE: "AB\u0001CD" }, /U\+0001/],
      ["file:code", {}, /U\+2013/],
      ["K\u00d6DE-1234", {}, /U\+00D6/],
    ];
    for (const [source, env, named] of cases) {
      const result = (await resolveCode(source, folder, env)) as { ok: boolean; problem: string };
      assert.equal(result.ok, false, source);
      assert.match(result.problem, named, source);
      assert.match(result.problem, /printable ASCII, letters and digits in groups with dashes or spaces/, source);
    }
    assert.deepEqual(await resolveCode("k7qx m2pd\tr4t1", folder, {}), { ok: true, code: "k7qx m2pd\tr4t1" }, "what the installer reads as a code (any case, spaces, a tab) passes");
  });
});
