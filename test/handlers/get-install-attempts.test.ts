import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import listAttempts from "../../handlers/get-install-attempts.ts";
import { finished, install, installRig, putDraft } from "../helpers/install-rig.ts";
import { describeAuth } from "../helpers/route-auth.ts";
import { assertAnswers } from "../helpers/route-schema.ts";

const { route } = listAttempts;
const PATH = "/v1/installer/install/attempts";

describe("GET /v1/installer/install/attempts", () => {
  test("200: none before the first attempt, then every attempt oldest first with its verdict once finished", async (t) => {
    const installer = await installRig(t);
    assert.deepEqual(assertAnswers(route, 200, await installer.request(PATH)), { attempts: [] });
    await writeFile(join(installer.folder, "FAIL"), "");
    await putDraft(installer);
    await install(installer);
    const failed = await finished(installer, 1);
    const [only, ...more] = assertAnswers(route, 200, await installer.request(PATH)).attempts;
    assert.deepEqual(more, []);
    assert.deepEqual([only?.attempt, only?.kind, only?.startedBy, only?.state, only?.step], [1, "install", "person", "failed", "firstboot"]);
    assert.deepEqual(only?.verdict, failed);
    assert.ok(only && only.startedAt <= only.finishedAt!);
  });

  describeAuth(route, {
    path: PATH,
    breaks: (services) => {
      services.attempts.list = () => {
        throw new Error("boom");
      };
    },
  });
});
