import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { MAX_CONFIG_DEPTH, nodeYamlJsonSchema } from "../../core/config/index.ts";
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

describe("validate CLI and the API agree", () => {
  // The same validator and the same nesting limit (MAX_CONFIG_DEPTH) behind `validate` and POST /config/validate.
  test("on an address a URL reads otherwise (ntp 0x0a.20.0.3, gateway 012.20.0.1), and on nesting at and past MAX_CONFIG_DEPTH", async (t) => {
    const installer = await inProcessApp(t);
    const folder = await tempDir();
    const nested = (levels: number) => `${VALID_NODE_YAML}extra: ${"{a: ".repeat(levels - 1)}x${"}".repeat(levels - 1)}\n`;
    const cases: Array<[string, string, RegExp]> = [
      ["addresses", VALID_NODE_YAML.replace("  gateway: 10.20.0.1\n", "  gateway: 012.20.0.1\n  ntp: [0x0a.20.0.3]\n"), /did you mean 10.20.0.1, or 12.20.0.1\?/],
      ["at the limit", nested(MAX_CONFIG_DEPTH), /extra is not a known key/],
      ["past the limit", nested(MAX_CONFIG_DEPTH + 1), new RegExp(`^node.yaml nests deeper than ${MAX_CONFIG_DEPTH} levels$`)],
    ];
    const hostFacts = join(import.meta.dirname, "../../demo/host-facts.json");
    await Promise.all(
      cases.map(async ([name, yaml, expected]) => {
        const file = join(folder, `${name}.yaml`);
        await writeFile(file, yaml);
        const [cli, api] = await Promise.all([
          runCli(["validate", file, "--format", "json", "--host-facts", hostFacts]),
          installer.request("/v1/installer/config/validate", { method: "POST", body: yaml, contentType: "application/yaml" }),
        ]);
        assert.equal(cli.code, 1, `${name}: ${cli.stderr}`);
        const { errors } = JSON.parse(cli.stdout) as { errors: Array<{ message: string }> };
        assert.deepEqual(errors, api.json.errors, name);
        assert.ok(errors.some((e) => expected.test(e.message)), `${name}: ${cli.stdout}`);
      }),
    );
  });
});

describe("schema CLI", () => {
  test("`schema` prints the node.yaml JSON Schema the API serves at /v1/installer/config/schema and /schemas/node.yaml.json", async () => {
    const printed = await runCli(["schema"]);
    assert.equal(printed.code, 0, printed.stderr);
    assert.deepEqual(JSON.parse(printed.stdout), JSON.parse(JSON.stringify(nodeYamlJsonSchema())));
  });
});
