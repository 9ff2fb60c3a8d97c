import assert from "node:assert/strict";
import { describe, test } from "node:test";
import getStatus from "../../handlers/get-status.ts";
import { inProcessApp, type InProcessApp } from "../helpers/app.ts";
import { makePayload } from "../../demo/make-payload.ts";
import { VALID_DRAFT, VALID_NODE_YAML } from "../helpers/fixtures.ts";
import { waitFor } from "../helpers/installer.ts";
import { finished, install, installRig, putDraft } from "../helpers/install-rig.ts";
import { assertRouteProblem } from "../helpers/route-problem.ts";
import { assertAnswers } from "../helpers/route-schema.ts";
import { UNPRINTABLE, assertPrintableJson, yamlQuoted } from "../helpers/printable-json.ts";

const { route } = getStatus;
const PATH = "/v1/installer/status";

/** A client at `address` (the socket's), the headers sent as given (spoofed forwarding headers too). */
const statusFrom = (installer: InProcessApp, address: string, code: string | null, headers: Record<string, string> = {}) => installer.request(PATH, { from: address, code, headers });

const SPOOFED: Record<string, string>[] = [
  { "x-forwarded-for": "203.0.113.7" },
  { "x-real-ip": "198.51.100.9" },
  { forwarded: "for=192.0.2.60;proto=https" },
  { "x-forwarded-for": "10.0.0.1, 10.0.0.2", "x-real-ip": "10.0.0.3", forwarded: 'for="[2001:db8::1]"' },
  { "x-client-ip": "10.9.9.9", "cf-connecting-ip": "10.8.8.8", "true-client-ip": "10.7.7.7", "x-cluster-client-ip": "10.6.6.6" },
];

const naming = (address: string) => ({ "x-forwarded-for": address, "x-real-ip": address, forwarded: `for=${address}` });

describe("GET /v1/installer/status", () => {
  test("200: seed 000's body before any draft or attempt", async (t) => {
    const installer = await inProcessApp(t);
    await installer.untilNoBlockers();
    assert.deepEqual(assertAnswers(route, 200, await installer.request(PATH)), {
      phase: "configuring",
      version: "0.0.0-test",
      mode: "single-node",
      profile: "single-node",
      hostname: "node-01",
      url: "https://127.0.0.1:9443",
      configValid: false,
      attempt: 0,
    });
  });

  test("200: the blockers while the payload is missing", async (t) => {
    const installer = await inProcessApp(t, { payload: false });
    const status = assertAnswers(route, 200, await installer.request(PATH));
    assert.deepEqual(status.blockers?.map((b) => b.code), ["PAYLOAD_NOT_LOADED"]);
  });

  test("200: after an attempt, its phase, count and times, and no step", async (t) => {
    const installer = await installRig(t);
    await putDraft(installer);
    await install(installer);
    await finished(installer, 1);
    const { startedAt, finishedAt, ...status } = assertAnswers(route, 200, await installer.request(PATH));
    assert.ok(startedAt && finishedAt && startedAt <= finishedAt);
    assert.deepEqual(status, { phase: "done", version: "0.0.0-test", mode: "single-node", profile: "single-node", hostname: "node-01", url: "https://127.0.0.1:9443", configValid: true, attempt: 1 });
  });

  // Its text is made once per change with JSON.stringify, which escapes C0 only: the draft's hostname came back raw.
  test("200: a node.yaml's hostname and keys holding bidi controls, C1 or line separators are written out (\\u202e), the same once parsed", async (t) => {
    const yaml = VALID_NODE_YAML.replace("hostname: node-01", `hostname: ${yamlQuoted(UNPRINTABLE)}`) + `${yamlQuoted(UNPRINTABLE)}: 1\n`;
    const installer = await inProcessApp(t, { handoff: yaml });
    const reply = await installer.request(PATH);
    assertAnswers(route, 200, reply);
    const status = assertPrintableJson(reply.text);
    assert.equal(status.hostname, UNPRINTABLE);
    assert.equal(status.unattended?.state, "invalid");
    assert.ok(status.unattended.errors.some((e: { field: string }) => e.field === UNPRINTABLE), reply.text);
  });

  test("200: an unattended node.yaml's key of 100 KB is named in unattended.errors cut short, saying how much", async (t) => {
    // A plain YAML key is at most 1,024 characters; one in flow style (JSON is YAML) has no limit.
    const installer = await inProcessApp(t, { handoff: JSON.stringify({ mode: "single-node", ["k".repeat(100_000)]: 1 }) });
    const status = assertAnswers(route, 200, await installer.request(PATH));
    assert.ok(status.unattended?.errors?.some((e) => e.field === `${"k".repeat(256)} … [cut 97.4 KiB]`), JSON.stringify(status.unattended).slice(0, 500));
  });

  test("the right code as Bearer, bare, or lower case without dashes → 200", async (t) => {
    const installer = await inProcessApp(t);
    assert.match(installer.code, /^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    for (const authorization of [`Bearer ${installer.code}`, installer.code, `bearer ${installer.code.toLowerCase().replaceAll("-", "")}`]) {
      assertAnswers(route, 200, await installer.request(PATH, { code: null, headers: { authorization } }));
    }
  });

  test("security headers on every answer, HSTS off for the self-signed certificate", async (t) => {
    const installer = await inProcessApp(t);
    for (const [path, code] of [[PATH, undefined], [PATH, null], ["/nope", null]] as const) {
      const reply = await installer.request(path, { code });
      assert.equal(reply.headers["x-content-type-options"], "nosniff");
      assert.equal(reply.headers["x-frame-options"], "SAMEORIGIN");
      assert.equal(reply.headers["strict-transport-security"], undefined);
    }
  });

  test("401 UNAUTHORIZED without a code, with a wrong one, with an empty Bearer", async (t) => {
    const installer = await inProcessApp(t);
    for (const [code, headers] of [[null, {}], ["AAAA-BBBB-CCCC", {}], [null, { authorization: "Bearer " }]] as const) {
      assertRouteProblem(route, await installer.request(PATH, { code, headers }), 401, "UNAUTHORIZED");
    }
  });

  test("429 TOO_MANY_ATTEMPTS after 5 wrong codes, with Retry-After, even for the right code and for none; endpoints without auth stay open", async (t) => {
    const installer = await inProcessApp(t);
    for (let i = 0; i < 5; i++) assertRouteProblem(route, await installer.request(PATH, { code: `WRONG-${i}` }), 401, "UNAUTHORIZED");
    const locked = await installer.request(PATH);
    assertRouteProblem(route, locked, 429, "TOO_MANY_ATTEMPTS");
    const retryAfter = Number(locked.headers["retry-after"]);
    assert.ok(retryAfter > 25 && retryAfter <= 30, `Retry-After ${retryAfter}`);
    assertRouteProblem(route, await installer.request(PATH, { code: null }), 429, "TOO_MANY_ATTEMPTS");
    assert.equal((await installer.request("/healthz", { code: null })).status, 200);
  });

  test("`Authorization: Bearer` with an empty or blank code is no code: 401 each time, never a guess, and the right code still works", async (t) => {
    const installer = await inProcessApp(t);
    const client = "127.0.0.9";
    for (const authorization of ["Bearer", "Bearer   ", "bearer", "Bearer \t", "BEARER ", ""]) {
      assertRouteProblem(route, await statusFrom(installer, client, null, { authorization }), 401, "UNAUTHORIZED");
    }
    assertAnswers(route, 200, await statusFrom(installer, client, installer.code));
  });

  test("500 INTERNAL when the service fails", async (t) => {
    const installer = await inProcessApp(t);
    installer.services.status = () => {
      throw new Error("boom");
    };
    assertRouteProblem(route, await installer.request(PATH), 500, "INTERNAL");
  });
});

describe("GET /v1/installer/status is of this moment: its reply's text is made again for every change it shows", () => {
  /** Polled through /status itself: a reply kept past a change would never show it, and the wait would fail. */
  const statusWhen = (installer: InProcessApp, what: string, ok: (status: any) => boolean) =>
    waitFor(what, async () => {
      const status = assertAnswers(route, 200, await installer.request(PATH));
      return ok(status) ? status : undefined;
    });

  test("payload, blockers, unattended, attempts: records changed in place show too", async (t) => {
    const installer = await installRig(t, { app: { payload: false, handoff: VALID_NODE_YAML } });
    const blocked = assertAnswers(route, 200, await installer.request(PATH));
    assert.deepEqual(blocked.blockers?.map((b) => b.code), ["PAYLOAD_NOT_LOADED"]);
    assert.deepEqual([blocked.unattended?.state, blocked.unattended?.autoStart, blocked.attempt, blocked.configValid], ["blocked", true, 0, true]);
    await makePayload(installer.payloadDir);
    // The unattended record and the attempt are changed in place (Object.assign, a step set on the record).
    const started = await statusWhen(installer, "the unattended install to start", (s) => s.unattended?.state === "started");
    assert.deepEqual([started.blockers, started.unattended?.autoStart, started.unattended?.attempt, started.attempt], [undefined, undefined, 1, 1]);
    await statusWhen(installer, "a step", (s) => s.phase === "installing" && s.step !== undefined);
    const done = await statusWhen(installer, "the attempt to finish", (s) => s.phase === "done");
    assert.equal(done.step, undefined);
    assert.ok(done.finishedAt && done.startedAt! <= done.finishedAt);
  });

  test("the draft: a PUT, a merge patch and a raw node.yaml each show in the next reply", async (t) => {
    const installer = await inProcessApp(t);
    await installer.untilNoBlockers();
    const first = assertAnswers(route, 200, await installer.request(PATH));
    assert.deepEqual([first.configValid, first.hostname], [false, "node-01"]);
    await putDraft(installer, { ...VALID_DRAFT, hostname: "node-07" });
    assert.deepEqual(pick(assertAnswers(route, 200, await installer.request(PATH))), { configValid: true, hostname: "node-07", mode: "single-node" });
    const patched = await installer.request("/v1/installer/config", { method: "PATCH", body: { hostname: "node-08" }, contentType: "application/merge-patch+json" });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(pick(assertAnswers(route, 200, await installer.request(PATH))), { configValid: true, hostname: "node-08", mode: "single-node" });
    const raw = await installer.request("/v1/installer/config/node.yaml", { method: "PUT", body: "mode: [unclosed", contentType: "application/yaml" });
    assert.equal(raw.status, 200, raw.text);
    assert.deepEqual(pick(assertAnswers(route, 200, await installer.request(PATH))), { configValid: false, hostname: "node-01", mode: undefined });
  });

  test("mode and profile follow SPEC §5's table, for a structured draft (its mode) and a raw node.yaml (the mode its node.yaml name resolves to)", async (t) => {
    const installer = await inProcessApp(t);
    const TABLE = [
      ["single-node", "single-node", "single-node"],
      ["hyperconverged-init", "ha-init", "hyperconverged"],
      ["hyperconverged-join", "join", "hyperconverged"],
      ["disaggregated-control-plane", "control-plane", "disaggregated"],
    ];
    for (const [mode, nodeYamlMode, profile] of TABLE) {
      assert.equal((await installer.request("/v1/installer/config", { method: "PUT", body: { ...VALID_DRAFT, mode } })).status, 200);
      const structured = assertAnswers(route, 200, await installer.request(PATH));
      assert.deepEqual([structured.mode, structured.profile], [mode, profile], `structured ${mode}`);
      const yaml = VALID_NODE_YAML.replace(/^mode: .*$/m, `mode: ${nodeYamlMode}`);
      assert.ok(yaml.startsWith(`mode: ${nodeYamlMode}\n`), yaml);
      assert.equal((await installer.request("/v1/installer/config", { method: "PUT", body: yaml, contentType: "application/yaml" })).status, 200);
      const raw = assertAnswers(route, 200, await installer.request(PATH));
      assert.deepEqual([raw.mode, raw.profile], [mode, profile], `node.yaml mode: ${nodeYamlMode}`);
    }
  });

  test("mode of a structured draft: null is none (single-node, as its profile says); a mode no installer knows is absent", async (t) => {
    const installer = await inProcessApp(t);
    await installer.untilNoBlockers();
    const put = (draft: object) => installer.request("/v1/installer/config", { method: "PUT", body: draft });
    assert.equal((await put({ ...VALID_DRAFT, mode: null })).status, 200);
    const none = assertAnswers(route, 200, await installer.request(PATH));
    assert.deepEqual([none.mode, none.profile, none.configValid], ["single-node", "single-node", false]);
    assert.equal((await put({ ...VALID_DRAFT, mode: "single-nod" })).status, 200);
    const unknown = assertAnswers(route, 200, await installer.request(PATH));
    assert.deepEqual([unknown.mode, unknown.profile], [undefined, "single-node"]);
  });
});

const pick = (status: { configValid: boolean; hostname: string; mode?: string }) => ({ configValid: status.configValid, hostname: status.hostname, mode: status.mode });

describe("GET /v1/installer/status: the lockout cannot be bypassed", () => {
  test("5 wrong codes under 5 spoofed forwarding headers lock the socket's address: 429 whatever address the headers claim", async (t) => {
    const installer = await inProcessApp(t);
    const attacker = "127.0.0.3";
    for (const headers of SPOOFED) assertRouteProblem(route, await statusFrom(installer, attacker, "WRNG-CODE-XXXX", headers), 401, "UNAUTHORIZED");
    for (const headers of [{}, ...SPOOFED]) {
      const reply = await statusFrom(installer, attacker, installer.code, headers);
      assertRouteProblem(route, reply, 429, "TOO_MANY_ATTEMPTS");
      assert.ok(Number(reply.headers["retry-after"]) > 0);
    }
  });

  test("a right code from another client naming the guessing address in forwarding headers does not reset its count", async (t) => {
    const installer = await inProcessApp(t);
    const [attacker, bystander] = ["127.0.0.4", "127.0.0.5"];
    for (let i = 0; i < 4; i++) assertRouteProblem(route, await statusFrom(installer, attacker, `WRNG-${i}`), 401, "UNAUTHORIZED");
    assertAnswers(route, 200, await statusFrom(installer, bystander, installer.code, naming(attacker)));
    assertRouteProblem(route, await statusFrom(installer, attacker, "WRNG-5"), 401, "UNAUTHORIZED");
    assertRouteProblem(route, await statusFrom(installer, attacker, installer.code), 429, "TOO_MANY_ATTEMPTS");
    assertAnswers(route, 200, await statusFrom(installer, bystander, installer.code));
  });

  test("a locked-out client gets 429 with the right code in every accepted spelling, and with no code", async (t) => {
    const installer = await inProcessApp(t);
    const attacker = "127.0.0.6";
    for (let i = 0; i < 5; i++) await statusFrom(installer, attacker, `WRNG-${i}`);
    const spellings = [`Bearer ${installer.code}`, installer.code, `bearer ${installer.code.toLowerCase().replaceAll("-", "")}`];
    for (const authorization of spellings) assertRouteProblem(route, await statusFrom(installer, attacker, null, { authorization }), 429, "TOO_MANY_ATTEMPTS");
    assertRouteProblem(route, await statusFrom(installer, attacker, null), 429, "TOO_MANY_ATTEMPTS");
  });
});
