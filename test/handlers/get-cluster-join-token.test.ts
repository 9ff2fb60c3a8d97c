import assert from "node:assert/strict";
import { describe, test } from "node:test";
import getJoinToken from "../../handlers/get-cluster-join-token.ts";
import { inProcessApp } from "../helpers/app.ts";
import { INIT_DRAFT } from "../helpers/fixtures.ts";
import { finished, install, installRig, putDraft } from "../helpers/install-rig.ts";
import { describeAuth } from "../helpers/route-auth.ts";
import { assertRouteProblem } from "../helpers/route-problem.ts";
import { assertAnswers } from "../helpers/route-schema.ts";

const { route } = getJoinToken;
const PATH = "/v1/installer/cluster/join-token";

describe("GET /v1/installer/cluster/join-token", () => {
  test("200 on an installed init node: a token pinning the certificate readiness met, the vip, the cluster and its release", async (t) => {
    const installer = await installRig(t);
    await putDraft(installer, INIT_DRAFT);
    await install(installer);
    assert.equal((await finished(installer, 1)).outcome, "succeeded");
    const answer = assertAnswers(route, 200, await installer.request(PATH));
    const [prefix, fingerprint, secret] = answer.token.split(":");
    assert.deepEqual({ ...answer, token: [prefix, fingerprint].join(":") }, { token: `STRATUM1:${installer.readiness.certSha256}`, joinAddress: "10.20.0.10", cluster: "rack-a", release: "2026.11.0" });
    assert.ok(Buffer.from(secret!, "base64url").length >= 16);
    assert.deepEqual(assertAnswers(route, 200, await installer.request(PATH)), answer, "the same token each time");
  });

  test("404 NOT_FOUND on a node of another mode, as the route documents its 404", async (t) => {
    const installer = await inProcessApp(t);
    await putDraft(installer);
    assertRouteProblem(route, await installer.request(PATH), 404, "NOT_FOUND");
    const documented = (route.responses[404] as { description: string }).description;
    assert.doesNotMatch(documented, /attempt/, "this path takes no attempt");
    assert.match(documented, /hyperconverged-init/);
  });

  test("409 NOT_INSTALLED on an init node before an install succeeded", async (t) => {
    const installer = await inProcessApp(t);
    await putDraft(installer, INIT_DRAFT);
    assertRouteProblem(route, await installer.request(PATH), 409, "NOT_INSTALLED");
  });

  describeAuth(route, {
    path: PATH,
    breaks: (services) => {
      services.cluster.joinToken = async () => {
        throw new Error("boom");
      };
    },
  });
});
