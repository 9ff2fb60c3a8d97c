import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { JOIN_CHECK_NAMES } from "../../core/state/records.ts";
import { formatJoinToken, generateSecret } from "../../core/cluster/join-token.ts";
import checkCluster from "../../handlers/post-cluster-join-check.ts";
import { inProcessApp, type InProcessApp } from "../helpers/app.ts";
import { BODY_OVER_1_MIB, VALID_DRAFT } from "../helpers/fixtures.ts";
import { installRig, putDraft } from "../helpers/install-rig.ts";
import { describeAuth } from "../helpers/route-auth.ts";
import { assertRouteProblem } from "../helpers/route-problem.ts";
import { assertAnswers } from "../helpers/route-schema.ts";

const { route } = checkCluster;
const PATH = "/v1/installer/cluster/join-check";
const POST = { method: "POST" } as const;

const joinDraft = (cluster: Record<string, string>) => ({
  ...VALID_DRAFT,
  mode: "hyperconverged-join",
  hostname: "node-02",
  network: { ...VALID_DRAFT.network, address: "10.20.0.12/24" },
  storage: { osdDevices: ["/dev/sdb"] },
  cluster: { name: "rack-a", ...cluster },
});

/** A joining node and the founded cluster it checks: a local cloud on port 0 that founded rack-a with `secret`. */
async function joiner(t: Parameters<typeof installRig>[0]) {
  const secret = generateSecret();
  const installer = await installRig(t, { cluster: { name: "rack-a", secret } });
  const joinAddress = `127.0.0.1:${installer.readiness.port}`;
  return { installer, joinAddress, token: formatJoinToken({ fingerprint: installer.readiness.certSha256, secret }) };
}

const draftEtag = async (installer: InProcessApp) => (await installer.request("/v1/installer/config")).headers.etag;

describe("POST /v1/installer/cluster/join-check", () => {
  test("200 ok: every check passed against the cluster the token names; the draft is unchanged", async (t) => {
    const { installer, joinAddress, token } = await joiner(t);
    await putDraft(installer, joinDraft({ joinAddress, joinToken: token }));
    const before = await draftEtag(installer);
    const result = assertAnswers(route, 200, await installer.request(PATH, POST));
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.deepEqual(result.checks.map((c) => [c.name, c.ok, c.code]), JOIN_CHECK_NAMES.map((name) => [name, true, undefined]));
    assert.equal(await draftEtag(installer), before);
    assert.equal((await installer.request("/v1/installer/status")).json.attempt, 0, "a check is no attempt");
  });

  test("200 not ok: a token pinning another certificate fails at the fingerprint, nothing after it is asked", async (t) => {
    const { installer, joinAddress, token } = await joiner(t);
    const [prefix, fingerprint, secret] = token.split(":");
    await putDraft(installer, joinDraft({ joinAddress, joinToken: [prefix, fingerprint!.replace(/^./, (c) => (c === "0" ? "1" : "0")), secret].join(":") }));
    const result = assertAnswers(route, 200, await installer.request(PATH, POST));
    assert.equal(result.ok, false);
    assert.deepEqual(result.checks.filter((c) => c.code).map((c) => [c.name, c.code]), [["fingerprint", "JOIN_FINGERPRINT_MISMATCH"]]);
    assert.deepEqual(installer.readiness.received().filter((r) => r.path.startsWith("/v1/cluster/")), [], "no request reached the cluster");
  });

  test("422 INVALID_CONFIG on a draft that is not a join, and on a join draft without its token", async (t) => {
    const installer = await inProcessApp(t);
    await putDraft(installer);
    const notJoin = assertRouteProblem(route, await installer.request(PATH, POST), 422, "INVALID_CONFIG");
    assert.deepEqual(notJoin.errors.map((e: { field: string }) => e.field), ["mode"]);
    await installer.request("/v1/installer/config", { method: "PUT", body: joinDraft({ joinAddress: "127.0.0.1" }) });
    const noToken = assertRouteProblem(route, await installer.request(PATH, POST), 422, "INVALID_CONFIG");
    assert.deepEqual(noToken.errors.map((e: { field: string }) => e.field), ["cluster.joinToken"]);
  });

  test("422 is for the mode and the cluster fields alone, as the route documents it: a join draft that does not validate elsewhere (its hostname) is checked, 200", async (t) => {
    const { installer, joinAddress, token } = await joiner(t);
    const draft = await installer.request("/v1/installer/config", { method: "PUT", body: { ...joinDraft({ joinAddress, joinToken: token }), hostname: "-not-a-hostname-" } });
    assert.equal(draft.json.valid, false);
    assert.equal(assertAnswers(route, 200, await installer.request(PATH, POST)).ok, true);
    const documented = (route.responses[422] as { description: string }).description;
    assert.doesNotMatch(documented, /^The draft does not validate/, "a client told so would fix the whole draft first");
    assert.match(documented, /hyperconverged-join/);
    assert.match(documented, /cluster/);
  });

  // The join check reaches https://{joinAddress}, whose URL parser reads 0x0a.20.0.12 as 10.20.0.12: the node itself.
  test("422 INVALID_CONFIG on a join address that is this node's own in a form a URL reads as it (0x0a.20.0.12): the draft, validate and the check say so alike", async (t) => {
    const { installer, token } = await joiner(t);
    const draft = joinDraft({ joinAddress: "0x0a.20.0.12:8443", joinToken: token });
    const stored = (await installer.request("/v1/installer/config", { method: "PUT", body: draft })).json;
    const validated = (await installer.request("/v1/installer/config/validate", { method: "POST", body: draft })).json;
    const refused = assertRouteProblem(route, await installer.request(PATH, POST), 422, "INVALID_CONFIG");
    for (const errors of [stored.errors, validated.errors, refused.errors]) {
      assert.deepEqual(errors.map((e: { field: string; message: string }) => [e.field, /did you mean 10\.20\.0\.12\?$/.test(e.message)]), [["cluster.joinAddress", true]], JSON.stringify(errors));
    }
    assert.deepEqual(installer.readiness.received().filter((r) => r.path.startsWith("/v1/cluster/")), [], "no request reached the cluster");
  });

  // A name the draft gives but of the wrong shape was taken as no name: "any cluster is accepted", ok, whichever cluster answered.
  test("422 INVALID_CONFIG on a join draft whose cluster name is malformed (a number): the cluster check is not skipped as if it named none", async (t) => {
    const { installer, joinAddress, token } = await joiner(t);
    await installer.request("/v1/installer/config", { method: "PUT", body: { ...joinDraft({ joinAddress, joinToken: token }), cluster: { name: 2026, joinAddress, joinToken: token } } });
    const refused = assertRouteProblem(route, await installer.request(PATH, POST), 422, "INVALID_CONFIG");
    assert.deepEqual(refused.errors.map((e: { field: string }) => e.field), ["cluster.name"]);
    assert.deepEqual(installer.readiness.received().filter((r) => r.path.startsWith("/v1/cluster/")), [], "no request reached the cluster");
  });

  test("413 BODY_TOO_LARGE for a body over the 1 MiB limit (the operation takes none): declared in its responses; nothing starts", async (t) => {
    const installer = await inProcessApp(t);
    const reply = await installer.request(PATH, { method: "POST", body: BODY_OVER_1_MIB });
    assertRouteProblem(route, reply, 413, "BODY_TOO_LARGE");
    assert.equal((await installer.request("/v1/installer/status")).json.attempt, 0);
  });

  describeAuth(route, {
    path: PATH, request: POST,
    breaks: (services) => {
      services.cluster.check = async () => {
        throw new Error("boom");
      };
    },
  });
});
