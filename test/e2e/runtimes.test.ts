import assert from "node:assert/strict";
import { readFile, readlink } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { OLDEST_NODE } from "../../cli/node-version.ts";
import { startReadinessServer } from "../../demo/readiness-server.ts";
import { VALID_DRAFT } from "../helpers/fixtures.ts";
import { BUNDLE, harness, ROOT, runCli, tempDir, untilNoBlockers, waitFor } from "../helpers/installer.ts";
import { ensureNode, NODE_RUNTIMES, OLD_NODE } from "../setup/node-runtimes.ts";

const lab = harness();

/** The smoke test on each supported Node.js line: the bundle starts, answers, and installs a node to done, quietly. */
describe("the bundle on every supported Node.js line", () => {
  for (const version of NODE_RUNTIMES) {
    test(`Node ${version}: start, status, a whole single-node install against the demo cloud`, async (t) => {
      const runtime = await ensureNode(version);
      if ("skip" in runtime) return t.skip(runtime.skip);
      const folder = await tempDir();
      const cloud = await startReadinessServer({ port: 0, scenario: "ready" });
      lab.defer(() => cloud.close());
      const installer = await lab.start({
        node: runtime.node,
        stateDir: join(folder, "state"),
        env: { FIRSTBOOT_DELAY: "0" },
        args: [
          "--firstboot", join(ROOT, "demo/firstboot.sh"),
          "--node-yaml", join(folder, "etc/stratum/node.yaml"),
          "--readiness-url", cloud.url,
          "--readiness-interval", "0.1",
        ],
      });
      assert.equal(await readlink(`/proc/${installer.proc.pid}/exe`), runtime.node);

      const status = await installer.request("/v1/installer/status");
      assert.equal(status.status, 200, status.text);
      assert.equal(status.json.phase, "configuring");
      await untilNoBlockers(installer);
      const draft = await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT });
      assert.equal(draft.json.valid, true, draft.text);
      assert.equal((await installer.request("/v1/installer/install", { method: "POST" })).status, 202);
      const verdict = await waitFor("the verdict", async () => {
        const reply = await installer.request("/v1/installer/install/verdict?attempt=1");
        return reply.status === 200 ? reply.json : undefined;
      });
      assert.equal(verdict.outcome, "succeeded", JSON.stringify(verdict));
      assert.equal((await installer.request("/v1/installer/status")).json.phase, "done");
      assert.doesNotMatch(installer.output().stderr, /Warning/, "no deprecation or experimental warning from this Node.js");
    });
  }
});

describe("a Node.js older than the bundle needs", () => {
  test(`Node ${OLD_NODE}: every command exits 1 at once with one line naming the Node it needs and the one it found`, async (t) => {
    const runtime = await ensureNode(OLD_NODE);
    if ("skip" in runtime) return t.skip(runtime.skip);
    for (const args of [["--version"], ["serve", "--state-dir", join(await tempDir(), "state")], ["status"]]) {
      const { code, stdout, stderr } = await runCli(args, {}, ROOT, BUNDLE, runtime.node);
      assert.equal(code, 1, args.join(" "));
      assert.equal(stdout, "");
      assert.equal(stderr, `installer: this installer needs Node.js ${OLDEST_NODE} or newer, and this is Node.js v${OLD_NODE}; install a newer nodejs package, or run installer.js with a newer node\n`);
    }
  });

  test(`package.json's engines begin at ${OLDEST_NODE}, the Node the bundle checks for, and every line tested is in them`, async () => {
    const { engines } = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8"));
    assert.match(engines.node, new RegExp(`^\\^${OLDEST_NODE.replaceAll(".", "\\.")} \\|\\| `));
    assert.equal(NODE_RUNTIMES[0], OLDEST_NODE);
  });
});
