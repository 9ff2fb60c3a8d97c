import assert from "node:assert/strict";
import { access, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { makePayload } from "../../demo/make-payload.ts";
import { VALID_NODE_YAML } from "../helpers/fixtures.ts";
import { harness, persistedStore, tempDir, waitFor, type RunningInstaller } from "../helpers/installer.ts";
import { assertProblem } from "../helpers/problem.ts";
import { refusingServer } from "../helpers/refusing-server.ts";

const lab = harness();
/** The cloud's readiness URL where nothing answers: the install waits at readiness. */
const unreachable = await refusingServer();
lab.defer(() => unreachable.close());

const NODE_YAML = `# from the install medium\n${VALID_NODE_YAML.replace("hostname: node-01", "hostname: node-07")}`;

const HA_NODE_YAML = `mode: ha-init
hostname: node-08
network:
  interface: eno1
  address: 10.20.0.11/24
  gateway: 10.20.0.1
  vip: 10.20.0.10
storage:
  osd_devices: [/dev/sdb]
cluster:
  name: rack-a
admin:
  password_hash: $6$saltsalt$hRM5XZ86KXEw9UOmjigeVqFgULtFB2sgpC9lXQDfMib3Zgw7mEiUvBJI2EplzfAqxL5Vvwp2scFtv/uamSo5z0
`;

interface Node {
  folder: string;
  stateDir: string;
  handoff: string;
  record: string;
  payload: string;
}

async function node(nodeYaml: string | undefined, origin: string | null = "node.yaml on the partition labeled STRATUM"): Promise<Node> {
  const folder = await tempDir("stratum-unattended-");
  const n = { folder, stateDir: join(folder, "state"), handoff: join(folder, "handoff/node.yaml"), record: join(folder, "install-record.json"), payload: join(folder, "payload") };
  await mkdir(join(folder, "handoff"), { recursive: true });
  if (nodeYaml !== undefined) await writeFile(n.handoff, nodeYaml);
  if (origin !== null) await writeFile(n.record, JSON.stringify({ origin }));
  return n;
}

function boot(n: Node) {
  return lab.start({
    stateDir: n.stateDir,
    payload: n.payload,
    args: ["--handoff", n.handoff, "--install-record", n.record, "--firstboot", "/bin/true", "--node-yaml", join(n.folder, "out/node.yaml"), "--readiness-url", unreachable.url("https", "/v1/readiness"), "--readiness-timeout", "1", "--readiness-interval", "0.2"],
  });
}

const exists = (path: string) => access(path).then(() => true, () => false);
const status = async (installer: RunningInstaller) => (await installer.request("/v1/installer/status")).json;

describe("unattended install (seed 000 `unattended`)", () => {
  test("started: a valid node.yaml with no blockers is made the draft (source yaml, verbatim), the file removed, attempt 1 started with no install code", async () => {
    const n = await node(NODE_YAML);
    await makePayload(n.payload);
    const booted = new Date().toISOString();
    const installer = await boot(n);
    const s = await waitFor("started", async () => {
      const st = await status(installer);
      return st.unattended?.state === "started" ? st : undefined;
    });
    assert.deepEqual(s.unattended, { state: "started", origin: "node.yaml on the partition labeled STRATUM", takenAt: s.unattended.takenAt, attempt: 1 });
    assert.ok(booted <= s.unattended.takenAt && s.unattended.takenAt <= new Date().toISOString(), `taken at ${s.unattended.takenAt}, by this start`);
    assert.equal(s.attempt, 1);
    assert.equal(s.hostname, "node-07");
    assert.equal(await exists(n.handoff), false, "the file is removed once taken");
    const draft = (await installer.request("/v1/installer/config")).json;
    assert.equal(draft.source, "yaml");
    assert.equal(draft.yaml, NODE_YAML);
    const attempts = (await installer.request("/v1/installer/install/attempts")).json.attempts;
    assert.equal(attempts[0].startedBy, "unattended");
  });

  test("invalid: nothing starts; errors by node.yaml key; it is the draft, to fix and install", async () => {
    const n = await node(NODE_YAML.replace("gateway: 10.20.0.1", "gateway: 10.99.0.1").replace("hostname: node-07", "hostname: node_07"));
    await makePayload(n.payload);
    const installer = await boot(n);
    const s = await status(installer);
    assert.equal(s.unattended.state, "invalid");
    assert.deepEqual(s.unattended.errors.map((e: any) => e.field), ["hostname", "network.gateway"]);
    assert.equal(s.unattended.autoStart, undefined);
    assert.equal(s.unattended.attempt, undefined);
    assert.equal(s.attempt, 0);
    assert.equal(s.configValid, false);
    assert.equal(await exists(n.handoff), false);
  });

  for (const [name, broken] of [
    ["a half-edited file (a bad indent, an unclosed quote)", NODE_YAML.replace("  gateway: 10.20.0.1", '   gateway: "10.20.0.1')],
    ["an alias bomb past the YAML limits", `mode: single-node\na0: &a0 [x, x]\n${Array.from({ length: 8 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(8).fill(`*a${i}`).join(", ")}]`).join("\n")}\n`],
    ["nesting past the YAML limits", `mode: single-node\nnetwork: ${"[".repeat(50_000)}${"]".repeat(50_000)}\n`],
  ] as const) {
    test(`invalid: ${name} that does not parse is taken as the draft, its problem at line and column; status has no mode`, async () => {
      const n = await node(broken);
      await makePayload(n.payload);
      const installer = await boot(n);
      const s = await status(installer);
      assert.equal(s.unattended.state, "invalid");
      assert.equal(s.unattended.errors.length, 1, JSON.stringify(s.unattended.errors));
      assert.equal(s.unattended.errors[0].field, "");
      assert.ok(s.unattended.errors[0].line >= 1 && s.unattended.errors[0].column >= 1, JSON.stringify(s.unattended.errors));
      assert.equal(s.mode, undefined);
      assert.deepEqual([s.profile, s.configValid, s.attempt], ["single-node", false, 0]);
      const draft = (await installer.request("/v1/installer/config")).json;
      assert.deepEqual([draft.source, draft.yaml, draft.valid], ["yaml", broken, false]);
      assert.deepEqual(draft.errors, s.unattended.errors);
      assertProblem(await installer.request("/v1/installer/config/node.yaml"), 422, "INVALID_CONFIG");
      assert.equal(await exists(n.handoff), false);
    });
  }

  test("origin is empty when the install record does not say", async () => {
    const n = await node(NODE_YAML, null);
    const installer = await boot(n);
    assert.equal((await status(installer)).unattended.origin, "");
  });

  test("blocked → starts by itself once the blockers clear (payload copied in)", async () => {
    const n = await node(NODE_YAML);
    const installer = await boot(n);
    const s = await status(installer);
    assert.deepEqual(s.unattended, { state: "blocked", origin: "node.yaml on the partition labeled STRATUM", takenAt: s.unattended.takenAt, autoStart: true });
    assert.deepEqual(s.blockers.map((b: any) => b.code), ["PAYLOAD_NOT_LOADED"]);
    assert.equal(s.attempt, 0);
    assert.match(installer.banner, /unattended install: blocked by PAYLOAD_NOT_LOADED; it starts by itself once they clear/);
    await makePayload(n.payload);
    const started = await waitFor("started", async () => {
      const st = await status(installer);
      return st.unattended.state === "started" ? st : undefined;
    });
    assert.equal(started.unattended.attempt, 1);
    assert.equal(started.unattended.autoStart, undefined);
    assert.equal(started.attempt, 1);
  });

  test("blocked → a person PUTs the config: autoStart off for good; nothing starts when the blockers clear", async () => {
    const n = await node(NODE_YAML);
    const installer = await boot(n);
    assert.equal((await status(installer)).unattended.autoStart, true);
    const put = await installer.request("/v1/installer/config", { method: "PUT", body: NODE_YAML.replace("node-07", "node-09"), contentType: "application/yaml" });
    assert.equal(put.status, 200);
    assert.equal((await status(installer)).unattended.autoStart, false);
    await makePayload(n.payload);
    // The unattended decision is taken in the same tick as the blockers clear: a status without blockers comes after it.
    const s = await waitFor("payload", async () => {
      const now = await status(installer);
      return now.blockers ? undefined : now;
    });
    assert.equal(s.attempt, 0, "nothing started by itself");
    assert.equal(s.unattended.state, "blocked");
    assert.equal(s.unattended.autoStart, false);
  });

  test("no handoff file: unattended is absent", async () => {
    const n = await node(undefined);
    const installer = await boot(n);
    assert.equal((await status(installer)).unattended, undefined, "absent when there was no file");
  });

  test("blocked → the machine no longer accepts it once the blockers clear → invalid with the reason", async () => {
    const n = await node(HA_NODE_YAML);
    const installer = await boot(n);
    const blocked = await status(installer);
    assert.equal(blocked.unattended.state, "blocked", JSON.stringify(blocked));
    assert.equal(blocked.mode, "hyperconverged-init");
    await makePayload(n.payload, { release: "2026.12.0", profiles: { "single-node": { enabled: true } } });
    const s = await waitFor("invalid", async () => {
      const st = await status(installer);
      return st.unattended.state === "invalid" ? st : undefined;
    });
    assert.equal(s.attempt, 0);
    assert.equal(s.unattended.autoStart, undefined);
    const mode = s.unattended.errors.find((e: any) => e.field === "mode");
    assert.match(mode.message, /does not ship the hyperconverged profile/);
    assert.equal(mode.line, 1);
  });

  test("a handoff file on a later start is not taken", async () => {
    const n = await node(undefined);
    await makePayload(n.payload);
    const first = await boot(n);
    await first.stop();
    await writeFile(n.handoff, NODE_YAML);
    const second = await boot(n);
    const s = await status(second);
    assert.equal(s.unattended, undefined);
    assert.equal(s.attempt, 0);
    assert.equal(await exists(n.handoff), true);
    assert.match(second.banner, /is not taken: a node\.yaml is taken only at the state dir's first start/);
  });

  test("killed after the take-over was persisted but before the file was removed: the next start removes it and does not take it twice", async () => {
    const n = await node(NODE_YAML);
    await makePayload(n.payload);
    const first = await boot(n);
    // Status reads memory, which runs a write ahead of the disk: wait until the take-over is on disk.
    await waitFor("the take-over persisted", async () => {
      const persisted = await persistedStore(n.stateDir);
      return persisted.unattended?.state === "started" && persisted.attempts?.length === 1 ? true : undefined;
    });
    await first.kill9();
    await writeFile(n.handoff, NODE_YAML);
    const second = await boot(n);
    assert.match(second.banner, /already taken before the last stop/);
    assert.equal(await exists(n.handoff), false);
    const s = await status(second);
    assert.equal(s.unattended.attempt, 1);
    assert.equal(s.attempt, 1, "not taken twice");
  });
});
