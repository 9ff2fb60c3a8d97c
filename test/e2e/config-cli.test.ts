import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { nodeYamlJsonSchema } from "../../core/config/index.ts";
import { DEFAULT_PROFILES, makePayload } from "../../demo/make-payload.ts";
import { inProcessApp } from "../helpers/app.ts";
import { VALID_DRAFT, VALID_NODE_YAML } from "../helpers/fixtures.ts";
import { runCli, tempDir } from "../helpers/installer.ts";

// The API's side of these (the draft, its node.yaml, the schema) is tested in-process in test/handlers/.
describe("validate CLI", () => {
  test("the node.yaml the API renders for a draft passes `validate`", async (t) => {
    const installer = await inProcessApp(t);
    await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT });
    const nodeYaml = await installer.request("/v1/installer/config/node.yaml");
    assert.equal(nodeYaml.status, 200, nodeYaml.text);
    const folder = await tempDir();
    await writeFile(join(folder, "node.yaml"), nodeYaml.text);
    const cli = await runCli(["validate", join(folder, "node.yaml"), "--host-facts", join(import.meta.dirname, "../../demo/host-facts.json")]);
    assert.equal(cli.code, 0, cli.stdout + cli.stderr);
  });

  test("a broken node.yaml prints FILE:LINE:COL per problem and exits 1; unreadable exits 2", async () => {
    const folder = await tempDir();
    const file = join(folder, "node.yaml");
    await writeFile(file, "mode: single-node\nhostname: node_01\nnetwork:\n  interface: eno1\n  adress: 10.20.0.11/24\n");
    const cli = await runCli(["validate", file, "--host-facts", join(import.meta.dirname, "../../demo/host-facts.json")]);
    assert.equal(cli.code, 1);
    assert.match(cli.stdout, new RegExp(`${file}:2:11: error: hostname: `));
    assert.match(cli.stdout, new RegExp(`${file}:5:3: error: network.adress: .*address`));
    const missing = await runCli(["validate", join(folder, "nope.yaml")]);
    assert.equal(missing.code, 2);
  });

  test("modes are judged by the payload's release.yaml (--payload), as the service judges them; without one, by the built-in model, with a note", async () => {
    const folder = await tempDir();
    const file = join(folder, "node.yaml");
    await writeFile(file, VALID_NODE_YAML);
    const hostFacts = ["--host-facts", join(import.meta.dirname, "../../demo/host-facts.json")];

    const enabled = join(folder, "payload-enabled");
    await makePayload(enabled);
    const ok = await runCli(["validate", file, ...hostFacts, "--payload", enabled]);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.equal(ok.stderr, "");

    const disabled = join(folder, "payload-disabled");
    await makePayload(disabled, { profiles: { ...DEFAULT_PROFILES, "single-node": { enabled: false } } });
    const refused = await runCli(["validate", file, ...hostFacts, "--payload", disabled]);
    assert.equal(refused.code, 1, refused.stdout + refused.stderr);
    assert.match(refused.stdout, new RegExp(`${file}:1:7: error: mode: .*single-node`));

    const none = await runCli(["validate", file, ...hostFacts, "--payload", join(folder, "no-payload")]);
    assert.equal(none.code, 0, none.stdout + none.stderr);
    assert.match(none.stderr, /^note: no release\.yaml in .*no-payload; modes are checked against the built-in release model/);
  });
});

describe("schema CLI", () => {
  test("`schema` prints the node.yaml JSON Schema the API serves at /v1/installer/config/schema and /schemas/node.yaml.json", async () => {
    const printed = await runCli(["schema"]);
    assert.equal(printed.code, 0, printed.stderr);
    assert.deepEqual(JSON.parse(printed.stdout), JSON.parse(JSON.stringify(nodeYamlJsonSchema())));
  });
});
