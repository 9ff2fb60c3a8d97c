import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { DEFAULT_PROFILES, makePayload } from "../../demo/make-payload.ts";
import { VALID_DRAFT, VALID_NODE_YAML } from "../helpers/fixtures.ts";
import { harness, httpsRaw, runCli, tempDir } from "../helpers/installer.ts";
import { assertProblem } from "../helpers/problem.ts";

const { start } = harness();


describe("options", () => {
  test("modes with availability and reasons, the host inventory, defaults", async () => {
    const installer = await start();
    const reply = await installer.request("/v1/installer/options");
    assert.equal(reply.status, 200);
    const modes = Object.fromEntries(reply.json.modes.map((m: any) => [m.mode, m]));
    assert.deepEqual(Object.keys(modes).sort(), ["disaggregated-control-plane", "hyperconverged-init", "hyperconverged-join", "single-node"]);
    assert.equal(modes["single-node"].available, true);
    assert.equal(modes["hyperconverged-init"].nodeYamlMode, "ha-init");
    assert.equal(modes["disaggregated-control-plane"].available, false);
    assert.match(modes["disaggregated-control-plane"].reason, /preview/);
    assert.equal(reply.json.host.hostname, "node-01");
    assert.ok(reply.json.host.disks.some((d: any) => d.path === "/dev/sdb" && d.inUse === false));
    assert.deepEqual(reply.json.defaults, { mode: "single-node", hostname: "node-01", network: { interface: "eno1" } });
  });
});

describe("config", () => {
  test("a half-filled draft is stored with every problem by path; PATCH fixes it; status follows", async () => {
    const installer = await start();
    const half = { mode: "hyperconverged-init", hostname: "-bad-", network: { interface: "eth9", address: "10.20.0.11/24", gateway: "10.30.0.1", floatingIpCidrs: ["10.20.0.0/25", "203.0.113.0/33"] }, storge: {} };
    const put = await installer.request("/v1/installer/config", { method: "PUT", body: half });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.valid, false);
    const fields = put.json.errors.map((e: any) => e.field);
    for (const field of ["hostname", "network.interface", "network.gateway", "network.floatingIpCidrs[0]", "network.floatingIpCidrs[1]", "network.vip", "cluster.name", "storage.osdDevices", "storge", "admin"]) {
      assert.ok(fields.includes(field), `${field} in ${fields.join(", ")}`);
    }
    const typo = put.json.errors.find((e: any) => e.field === "storge");
    assert.match(typo.hint, /storage/);
    assert.ok(put.headers.etag);

    const status = await installer.request("/v1/installer/status");
    assert.equal(status.json.configValid, false);
    assert.equal(status.json.mode, "hyperconverged-init");
    assert.equal(status.json.profile, "hyperconverged");
    assert.equal(status.json.hostname, "-bad-");

    const patch = await installer.request("/v1/installer/config", {
      method: "PATCH",
      contentType: "application/merge-patch+json",
      headers: { "if-match": String(put.headers.etag) },
      body: {
        mode: "single-node",
        hostname: "node-01",
        storge: null,
        network: { interface: "eno1", gateway: "10.20.0.1", floatingIpCidrs: ["203.0.113.0/24"] },
        admin: VALID_DRAFT.admin,
      },
    });
    assert.equal(patch.status, 200, patch.text);
    assert.deepEqual(patch.json.errors, []);
    assert.equal(patch.json.valid, true);
    assert.notEqual(patch.headers.etag, put.headers.etag);
    const after = await installer.request("/v1/installer/status");
    assert.equal(after.json.configValid, true);
    assert.equal(after.json.mode, "single-node");

    const nodeYaml = await installer.request("/v1/installer/config/node.yaml");
    assert.equal(nodeYaml.status, 200);
    assert.match(String(nodeYaml.headers["content-type"]), /^application\/yaml/);
    assert.match(nodeYaml.text, /^mode: "single-node"$/m);
    assert.match(nodeYaml.text, /floating_ip_cidrs:/);
    assert.match(nodeYaml.text, /ssh_authorized_keys:/);

    const folder = await tempDir();
    await writeFile(join(folder, "node.yaml"), nodeYaml.text);
    const cli = await runCli(["validate", join(folder, "node.yaml"), "--host-facts", join(import.meta.dirname, "../../demo/host-facts.json")]);
    assert.equal(cli.code, 0, cli.stdout + cli.stderr);
  });

  test("If-Match that does not match → 412 and the draft is unchanged", async () => {
    const installer = await start();
    const first = await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT });
    const stale = await installer.request("/v1/installer/config", { method: "PUT", headers: { "if-match": '"stale"' }, body: { hostname: "x" } });
    assertProblem(stale, 412, "PRECONDITION_FAILED");
    const now = await installer.request("/v1/installer/config");
    assert.equal(now.headers.etag, first.headers.etag);
    assert.deepEqual(now.json.config, VALID_DRAFT);
    const ok = await installer.request("/v1/installer/config", { method: "PATCH", headers: { "if-match": String(first.headers.etag) }, body: { timezone: "UTC" } });
    assert.equal(ok.status, 200);
  });

  test("a raw node.yaml draft is kept verbatim, with line:column errors by node.yaml key", async () => {
    const installer = await start();
    const yaml = "# rack 4, slot 2\nmode: single-node\nhostname: node-01\nnetwork:\n  interface: eno1\n  address: 10.20.0.11/24\n  gateway: 10.20.0.1\n  floating_ip_cidrs:\n    - 203.0.113.0/24\n    - 10.20.0.0/16\n";
    const put = await installer.request("/v1/installer/config", { method: "PUT", body: yaml, contentType: "application/yaml" });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.source, "yaml");
    assert.equal(put.json.yaml, yaml);
    const overlap = put.json.errors.find((e: any) => e.field === "network.floating_ip_cidrs[1]");
    assert.ok(overlap, JSON.stringify(put.json.errors));
    assert.equal(overlap.line, 10);
    assert.equal(overlap.column, 7);
    const status = await installer.request("/v1/installer/status");
    assert.equal(status.json.mode, "single-node");
    const get = await installer.request("/v1/installer/config");
    assert.equal(get.json.yaml, yaml);
  });

  test("PUT /config/node.yaml takes a raw node.yaml as PUT /config does: kept verbatim, stored when it does not parse, If-Match honoured, JSON refused", async () => {
    const installer = await start();
    const first = await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT });
    const broken = "# half-edited\nmode: single-node\nhostname: \"node-07\n";
    const put = await installer.request("/v1/installer/config/node.yaml", { method: "PUT", body: broken, contentType: "text/yaml", headers: { "if-match": String(first.headers.etag) } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual([put.json.source, put.json.yaml, put.json.valid], ["yaml", broken, false]);
    assert.match(put.json.errors[0].message, /^YAML syntax error: /);
    assert.ok(put.json.errors[0].line >= 1, JSON.stringify(put.json.errors));
    const get = await installer.request("/v1/installer/config");
    assert.deepEqual(get.json, put.json);
    assert.equal(get.headers.etag, put.headers.etag);
    assert.equal((await installer.request("/v1/installer/status")).json.mode, undefined);

    const stale = await installer.request("/v1/installer/config/node.yaml", { method: "PUT", body: VALID_NODE_YAML, contentType: "application/yaml", headers: { "if-match": String(first.headers.etag) } });
    assertProblem(stale, 412, "PRECONDITION_FAILED");
    const json = await installer.request("/v1/installer/config/node.yaml", { method: "PUT", body: VALID_DRAFT });
    assertProblem(json, 415, "UNSUPPORTED_MEDIA_TYPE", { detail: /send the node\.yaml as application\/yaml or text\/yaml\.$/ });
    assert.equal((await installer.request("/v1/installer/config")).headers.etag, put.headers.etag);

    const fixed = await installer.request("/v1/installer/config/node.yaml", { method: "PUT", body: VALID_NODE_YAML, contentType: "application/yaml; charset=utf-8", headers: { "if-match": String(put.headers.etag) } });
    assert.equal(fixed.status, 200, fixed.text);
    assert.deepEqual([fixed.json.yaml, fixed.json.valid, fixed.json.errors], [VALID_NODE_YAML, true, []]);
    assert.equal((await installer.request("/v1/installer/config/node.yaml")).text, VALID_NODE_YAML);
  });

  test("a raw node.yaml with an unknown mode: status has no mode, profile single-node", async () => {
    const installer = await start();
    await installer.request("/v1/installer/config", { method: "PUT", body: "mode: galaxy\n", contentType: "text/yaml" });
    const status = await installer.request("/v1/installer/status");
    assert.equal(status.json.mode, undefined);
    assert.equal(status.json.profile, "single-node");
  });

  for (const [name, options, status, code] of [
    ["JSON that does not parse", { body: "{\"mode\":", contentType: "application/json" }, 400, "INVALID_REQUEST"],
    ["a JSON array", { body: "[1,2]", contentType: "application/json" }, 400, "INVALID_REQUEST"],
    ["a form body", { body: "a=b", contentType: "application/x-www-form-urlencoded" }, 415, "UNSUPPORTED_MEDIA_TYPE"],
    ["text/plain", { body: "hello", contentType: "text/plain" }, 415, "UNSUPPORTED_MEDIA_TYPE"],
    ["a 2 MiB body", { body: JSON.stringify({ hostname: "x".repeat(2 * 1024 * 1024) }), contentType: "application/json" }, 413, "BODY_TOO_LARGE"],
  ] as const) {
    test(`PUT ${name} → ${status} ${code}, the draft unchanged`, async () => {
      const installer = await start();
      const first = await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT });
      const reply = await installer.request("/v1/installer/config", { method: "PUT", ...options });
      assertProblem(reply, status, code);
      const now = await installer.request("/v1/installer/config");
      assert.equal(now.headers.etag, first.headers.etag);
    });
  }

  test("JSON syntax errors name line and column; an empty body and a body without a Content-Type are told apart", async () => {
    const installer = await start();
    const broken = await installer.request("/v1/installer/config", { method: "PUT", body: '{\n  "mode": "single-node",\n  "hostname": "node-01",,\n}', contentType: "application/json" });
    assertProblem(broken, 400, "INVALID_REQUEST", { detail: /^The body is not valid JSON \(line 3, column 25\): / });
    const empty = await installer.request("/v1/installer/config", { method: "PUT", body: "", contentType: "application/json" });
    assertProblem(empty, 400, "INVALID_REQUEST", { detail: /^The body is empty/ });
    const untyped = await httpsRaw(`${installer.url}/v1/installer/config`, { method: "PUT", code: installer.code, body: '{"mode":"single-node"}' });
    assertProblem(untyped, 415, "UNSUPPORTED_MEDIA_TYPE", { detail: /^A body without a Content-Type is not taken here/ });
    const inherited = await installer.request("/v1/installer/config", { method: "PUT", body: '{"mode":"single-node"}', contentType: "constructor" });
    assertProblem(inherited, 415, "UNSUPPORTED_MEDIA_TYPE", { what: "a Content-Type named like an Object.prototype member is not a documented type" });
  });

  test("a half-edited node.yaml that does not parse is stored (SPEC §9): its parse error at line and column, no mode, and no install", async () => {
    const installer = await start();
    const yaml = "# rack 4, slot 2\nmode: single-node\nhostname: node-07\nnetwork:\n  interface: eno1\n   address: 10.20.0.11/24\n  gateway: \"10.20.0.1\nadmin:\n  ssh_authorized_keys: []\n";
    const put = await installer.request("/v1/installer/config", { method: "PUT", body: yaml, contentType: "application/yaml" });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.source, "yaml");
    assert.equal(put.json.yaml, yaml);
    assert.equal(put.json.valid, false);
    assert.equal(put.json.errors.length, 1, JSON.stringify(put.json.errors));
    const [error] = put.json.errors;
    assert.deepEqual(Object.keys(error).sort(), ["column", "field", "line", "message"]);
    assert.equal(error.field, "");
    assert.match(error.message, /^YAML syntax error: /);
    assert.ok(error.line >= 5 && error.line <= 7 && error.column >= 1, JSON.stringify(error));

    const get = await installer.request("/v1/installer/config");
    assert.deepEqual(get.json, put.json);
    assert.equal(get.headers.etag, put.headers.etag);
    const status = await installer.request("/v1/installer/status");
    assert.equal(status.json.mode, undefined);
    assert.equal(status.json.profile, "single-node");
    assert.equal(status.json.configValid, false);
    assert.equal(status.json.hostname, "node-01", "the machine's own hostname: the draft names none that can be read");

    const validate = await installer.request("/v1/installer/config/validate", { method: "POST", body: yaml, contentType: "text/yaml" });
    assert.equal(validate.status, 200, validate.text);
    assert.deepEqual(validate.json, { valid: false, errors: put.json.errors, profile: "single-node" });
    const install = await installer.request("/v1/installer/install", { method: "POST" });
    assertProblem(install, 422, "INVALID_CONFIG", { errors: put.json.errors });
    const nodeYaml = await installer.request("/v1/installer/config/node.yaml");
    assertProblem(nodeYaml, 422, "INVALID_CONFIG");
    assert.equal((await installer.request("/v1/installer/status")).json.attempt, 0);
  });

  const ALIAS_BOMB = 'a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n';
  for (const [name, yaml, message] of [
    ["an unclosed flow sequence", "mode: [single-node\n", /^YAML syntax error: /],
    ["an alias bomb", ALIAS_BOMB, /aliases/],
    ["a duplicate key", "hostname: a\nhostname: b\n", /key hostname appears twice/],
    ["nesting over the limit", `mode: single-node\nnetwork: ${"[".repeat(5_000)}${"]".repeat(5_000)}\n`, /nests deeper than 32 levels/],
    ["a list, not a mapping", "- mode: single-node\n", /must be a mapping/],
    ["only a comment", "# to be written\n", /node\.yaml is empty/],
  ] as const) {
    test(`PUT a node.yaml with ${name}: stored, valid false, the problem at line and column; status and node.yaml still answer`, async () => {
      const installer = await start();
      const put = await installer.request("/v1/installer/config", { method: "PUT", body: yaml, contentType: "application/yaml" });
      assert.equal(put.status, 200, put.text);
      assert.equal(put.json.valid, false);
      assert.equal(put.json.yaml, yaml);
      assert.match(put.json.errors[0].message, message);
      assert.ok(put.json.errors[0].line >= 1 && put.json.errors[0].column >= 1, JSON.stringify(put.json.errors));
      const status = await installer.request("/v1/installer/status");
      assert.equal(status.json.mode, undefined);
      assert.deepEqual([status.json.profile, status.json.configValid], ["single-node", false]);
      assertProblem(await installer.request("/v1/installer/config/node.yaml"), 422, "INVALID_CONFIG");
    });
  }

  test("POST /config/validate validates without storing", async () => {
    const installer = await start();
    const before = await installer.request("/v1/installer/config");
    const reply = await installer.request("/v1/installer/config/validate", { method: "POST", body: { ...VALID_DRAFT, hostname: "UPPER_case" } });
    assert.equal(reply.status, 200);
    assert.equal(reply.json.valid, false);
    assert.deepEqual(reply.json.errors.map((e: any) => e.field), ["hostname"]);
    const ok = await installer.request("/v1/installer/config/validate", { method: "POST", body: VALID_DRAFT });
    assert.deepEqual(ok.json, { valid: true, errors: [], mode: "single-node", profile: "single-node" });
    const now = await installer.request("/v1/installer/config");
    assert.equal(now.headers.etag, before.headers.etag);
  });

  test("GET /config/node.yaml of an invalid draft → 422 with the errors", async () => {
    const installer = await start();
    const reply = await installer.request("/v1/installer/config/node.yaml");
    assertProblem(reply, 422, "INVALID_CONFIG");
  });

  test("the node.yaml JSON Schema is published over HTTP and by the CLI", async () => {
    const installer = await start();
    const reply = await installer.request("/v1/installer/config/schema");
    assert.equal(reply.status, 200);
    assert.match(String(reply.headers["content-type"]), /application\/schema\+json/);
    assert.ok(reply.json.properties.network.properties.floating_ip_cidrs);
    const cli = await runCli(["schema"]);
    assert.deepEqual(JSON.parse(cli.stdout), reply.json);
  });

  test("PATCH on a raw YAML draft is refused with a way forward", async () => {
    const installer = await start();
    await installer.request("/v1/installer/config", { method: "PUT", body: "mode: single-node\n", contentType: "application/yaml" });
    const reply = await installer.request("/v1/installer/config", { method: "PATCH", body: { hostname: "x" } });
    assertProblem(reply, 400, "INVALID_REQUEST", { detail: /PUT/ });
  });
});

describe("validate CLI", () => {
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
