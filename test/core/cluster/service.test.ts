import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parse } from "yaml";
import { createCluster, withJoinToken } from "../../../core/cluster/service.ts";
import type { Draft } from "../../../core/config/index.ts";
import { renderNodeYaml } from "../../../core/config/node-yaml.ts";
import type { AttemptRecord, ClusterRecord, DraftRecord } from "../../../core/state/records.ts";
import type { Slice } from "../../../core/state/store.ts";

function slice<T>(initial: T, fail = false): Slice<T> & { saves: number } {
  let value = initial;
  return {
    saves: 0,
    get: () => value,
    set: (next: T) => {
      value = next;
    },
    async save() {
      if (fail) throw new Error("ENOSPC");
      this.saves++;
    },
  };
}

const draftOf = (config: Record<string, unknown>, mode: string) => ({
  record: (): DraftRecord => ({ source: "structured", config, revision: 1, updatedAt: null }),
  analysis: () => ({ mode, errors: [] }),
});

const cluster = (config: Record<string, unknown>, mode: string, kept: Slice<ClusterRecord | undefined>, attempts: AttemptRecord[] = []) =>
  createCluster({ cluster: kept, draft: draftOf(config, mode), attempts: () => attempts, release: () => "2026.11.0", readinessUrl: "https://127.0.0.1:1/", now: () => new Date(), log: { info() {}, warn() {}, error() {} } });

describe("the founding secret of an ha-init node", () => {
  it("is generated once, saved before node.yaml is written, and the same on every retry", async () => {
    const kept = slice<ClusterRecord | undefined>(undefined);
    const c = cluster({ cluster: { name: "rack-a" } }, "hyperconverged-init", kept);
    const first = await c.foundingSecret();
    assert.ok(first && Buffer.from(first, "base64url").length === 32);
    assert.equal(kept.saves, 1);
    assert.equal(await c.foundingSecret(), first);
    assert.equal(kept.saves, 1, "kept, not generated again");
    assert.deepEqual(c.secrets(), [first]);
  });

  it("is the draft's own when it brings a bare secret (already in node.yaml: nothing to add)", async () => {
    const kept = slice<ClusterRecord | undefined>(undefined);
    assert.equal(await cluster({ cluster: { joinToken: "A".repeat(43) } }, "hyperconverged-init", kept).foundingSecret(), undefined);
    assert.equal(kept.get(), undefined);
  });

  it("is none for other modes", async () => {
    assert.equal(await cluster({}, "single-node", slice<ClusterRecord | undefined>(undefined)).foundingSecret(), undefined);
  });

  it("that cannot be saved is not kept in memory either", async () => {
    const kept = slice<ClusterRecord | undefined>(undefined, true);
    await assert.rejects(cluster({}, "hyperconverged-init", kept).foundingSecret(), /ENOSPC/);
    assert.equal(kept.get(), undefined);
  });
});

describe("withJoinToken", () => {
  it("sets cluster.join_token and keeps the rest, comments too", () => {
    const text = withJoinToken("# from stage 1\nmode: ha-init\ncluster:\n  name: rack-a # the rack\n", "S3cret");
    assert.deepEqual(parse(text), { mode: "ha-init", cluster: { name: "rack-a", join_token: "S3cret" } });
    assert.match(text, /# from stage 1/);
    assert.match(text, /# the rack/);
  });

  it("adds the cluster section when there is none", () => {
    assert.deepEqual(parse(withJoinToken("mode: ha-init\n", "S3cret")), { mode: "ha-init", cluster: { join_token: "S3cret" } });
  });

  // What a line-by-line reader of node.yaml (grep, a firstboot's sed) sees must be what GET /config/node.yaml showed.
  const LONG_KEY = `ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAACAQ${"x".repeat(700)} ops@example`;
  const SECRET = "ekv9SqFMe9Lna6oyTRN8xREnTRLu7kloRmVhvIArWcA";
  const added = (before: string, after: string) => {
    const kept = after.split("\n");
    const at = kept.findIndex((line) => line.trim() === `join_token: "${SECRET}"`);
    assert.ok(at >= 0, after);
    kept.splice(at, 1);
    assert.equal(kept.join("\n"), before, "every other line as it was");
  };

  it("adds one line and keeps every other line as it was: no long line folded, no spacing or indentation changed", () => {
    const structured = renderNodeYaml({ mode: "hyperconverged-init", hostname: "node-01", cluster: { name: "rack-a" }, admin: { sshAuthorizedKeys: [LONG_KEY] } } as Draft);
    const raw = `# stage 1\nmode: ha-init     # raw draft\nhostname: node-01\ncluster:\n    # ours\n    name: rack-a\nadmin:\n    ssh_authorized_keys:\n        - ${LONG_KEY}\n`;
    for (const before of [structured, raw]) {
      const after = withJoinToken(before, SECRET);
      added(before, after);
      assert.equal(parse(after).cluster.join_token, SECRET);
      assert.equal(parse(after).admin.ssh_authorized_keys[0], LONG_KEY);
    }
    const none = withJoinToken(`mode: ha-init\nadmin:\n  ssh_authorized_keys: [${JSON.stringify(LONG_KEY)}]`, SECRET);
    assert.equal(none, `mode: ha-init\nadmin:\n  ssh_authorized_keys: [${JSON.stringify(LONG_KEY)}]\ncluster:\n  join_token: "${SECRET}"\n`);
  });

  it("a cluster section it cannot add a line to (a flow map) is written by the YAML library, still with no line folded and the secret quoted", () => {
    const after = withJoinToken(`mode: ha-init\ncluster: { name: rack-a }\nadmin: { ssh_authorized_keys: ["${LONG_KEY}"] }\n`, SECRET);
    assert.deepEqual(parse(after), { mode: "ha-init", cluster: { name: "rack-a", join_token: SECRET }, admin: { ssh_authorized_keys: [LONG_KEY] } });
    assert.ok(after.split("\n").some((line) => line.includes(LONG_KEY)), after);
    assert.match(after, new RegExp(`join_token: "${SECRET}"`));
  });
});

describe("the join token endpoint's rules", () => {
  it("404 for a node of another mode, 409 NOT_INSTALLED before an attempt succeeded", async () => {
    await assert.rejects(cluster({}, "hyperconverged-join", slice<ClusterRecord | undefined>(undefined)).joinToken(), { code: "NOT_FOUND" });
    await assert.rejects(cluster({}, "hyperconverged-init", slice<ClusterRecord | undefined>(undefined)).joinToken(), { code: "NOT_INSTALLED" });
  });

  it("pins the certificate readiness recorded, and points joins at the vip", async () => {
    const attempts = [{ attempt: 1, state: "succeeded", verdict: { outcome: "succeeded" }, cloudCertSha256: "ab".repeat(32), payloadVersion: "2026.11.0" }] as unknown as AttemptRecord[];
    const c = cluster({ network: { vip: "10.20.0.10" }, cluster: { name: "rack-a" } }, "hyperconverged-init", slice<ClusterRecord | undefined>({ secret: "S".repeat(43) }), attempts);
    assert.deepEqual(await c.joinToken(), { token: `STRATUM1:${"ab".repeat(32)}:${"S".repeat(43)}`, joinAddress: "10.20.0.10", cluster: "rack-a", release: "2026.11.0" });
  });
});
