import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { makePayload } from "../../demo/make-payload.ts";
import route from "../../handlers/get-options.ts";
import { inProcessApp } from "../helpers/app.ts";
import { tempDir } from "../helpers/installer.ts";
import { DEMO_HOST_FACTS } from "../helpers/paths.ts";
import { describeAuth } from "../helpers/route-auth.ts";
import { assertAnswers } from "../helpers/route-schema.ts";
import { UNPRINTABLE, assertPrintableJson } from "../helpers/printable-json.ts";
import { writeFile } from "node:fs/promises";

const path = "/v1/installer/options";

describe("GET /v1/installer/options", () => {
  test("200: every mode with availability and reason, the host inventory as the host facts give it (disks by by-id path, WWN and serial), the release, defaults", async (t) => {
    const installer = await inProcessApp(t);
    await installer.untilNoBlockers();
    const body = assertAnswers(route, 200, await installer.request(path));
    const { modes, ...rest } = body;
    // Each mode's fields are modeOptions' rule (test/core/config/modes.test.ts); here: the service's list, as the real release makes it.
    assert.deepEqual(modes, installer.services.options().modes);
    assert.deepEqual(Object.fromEntries(modes.map((m: any) => [m.mode, m.available])), {
      "single-node": true,
      "hyperconverged-init": true,
      "hyperconverged-join": true,
      "disaggregated-control-plane": false,
    });
    assert.deepEqual(rest, {
      host: JSON.parse(await readFile(DEMO_HOST_FACTS, "utf8")),
      release: "2026.11.0",
      defaults: { mode: "single-node", hostname: "node-01", network: { interface: "eno1" } },
    });
    assert.deepEqual(body.host.disks[1], {
      name: "sdb",
      path: "/dev/sdb",
      byId: ["/dev/disk/by-id/wwn-0x5002538f4312abcd", "/dev/disk/by-id/ata-SAMSUNG_MZ7L33T8HBLT-00A07_S6ESNE0T612345"],
      wwn: "0x5002538f4312abcd",
      serial: "S6ESNE0T612345",
      sizeBytes: 3840755982336,
      model: "SAMSUNG MZ7L33T8HBLT",
      rotational: false,
      inUse: false,
    });
  });

  test("200 as printable JSON: a disk's model or the machine's hostname (the machine's own text) with a bidi override or a C1 control is written out, the same value once parsed", async (t) => {
    const facts = JSON.parse(await readFile(DEMO_HOST_FACTS, "utf8"));
    facts.hostname = `node${UNPRINTABLE}`;
    facts.disks[1].model = `SAMSUNG${UNPRINTABLE}`;
    const file = join(await tempDir("stratum-options-"), "host.json");
    await writeFile(file, JSON.stringify(facts));
    const installer = await inProcessApp(t, { args: ["--host-facts", file] });
    const reply = await installer.request(path);
    assertAnswers(route, 200, reply);
    const body = assertPrintableJson(reply.text);
    assert.deepEqual([body.host.hostname, body.host.disks[1].model], [facts.hostname, facts.disks[1].model]);
  });

  test("200 while no payload is loaded: release null", async (t) => {
    const installer = await inProcessApp(t, { payload: false });
    const body = assertAnswers(route, 200, await installer.request(path));
    assert.equal(body.release, null);
  });

  test("200: the release model drives the modes: a profile the release does not ship is refused with the reason", async (t) => {
    const payload = join(await tempDir("stratum-options-"), "payload");
    await makePayload(payload, { release: "2026.12.0", profiles: { "single-node": { enabled: true } } });
    const installer = await inProcessApp(t, { args: ["--payload", payload] });
    await installer.untilNoBlockers();
    const body = assertAnswers(route, 200, await installer.request(path));
    assert.equal(body.release, "2026.12.0");
    const modes = Object.fromEntries(body.modes.map((m) => [m.mode, m]));
    assert.equal(modes["single-node"]!.available, true);
    assert.equal(modes["hyperconverged-init"]!.available, false);
    assert.match(String(modes["hyperconverged-init"]!.reason), /2026\.12\.0 does not ship the hyperconverged profile/);
  });

  describeAuth(route, {
    path,
    breaks: (services) => {
      services.options = () => {
        throw new Error("host facts unreadable at /var/lib/stratum/secret-path");
      };
    },
  });
});
