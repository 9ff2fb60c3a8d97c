import SwaggerParser from "@apidevtools/swagger-parser";
import { Spectral, type RulesetDefinition } from "@stoplight/spectral-core";
import { oas } from "@stoplight/spectral-rulesets";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { promisify } from "node:util";
import getOpenApi from "../../handlers/get-openapi.ts";
import { ROUTES } from "../../handlers/index.ts";
import { inProcessApp } from "../helpers/app.ts";
import { ROOT } from "../helpers/installer.ts";
import { assertRouteProblem } from "../helpers/route-problem.ts";
import { assertAnswers } from "../helpers/route-schema.ts";
import { INIT_DRAFT, VALID_DRAFT } from "../helpers/fixtures.ts";
import { Ajv2020 } from "ajv/dist/2020.js";

/** A validator that knows the document's schemas by their $ref (OpenAPI 3.1's are JSON Schema 2020-12). */
function ajvFor(doc: { components: { schemas: Record<string, object> } }) {
  const ajv = new Ajv2020({ validateFormats: false, allErrors: true, strict: false });
  for (const [name, schema] of Object.entries(doc.components.schemas)) ajv.addSchema(schema, `#/components/schemas/${name}`);
  return ajv;
}

const { route } = getOpenApi;

/** The document as GET /openapi.json serves it, without a code: the text `installer openapi` prints (openapi-snapshot.test.ts). */
async function servedDocument(t: TestContext): Promise<string> {
  const installer = await inProcessApp(t);
  const reply = await installer.request("/openapi.json", { code: null });
  assertAnswers(route, 200, reply);
  return reply.text;
}

test("GET /openapi.json: 200 OpenAPI 3.1 without a code, every route of the app with its problems", async (t) => {
  const doc = JSON.parse(await servedDocument(t));
  assert.equal(doc.openapi, "3.1.0");
  // The port is a variable, as --listen makes it: a client's base URL is not fixed to 9443.
  assert.deepEqual(doc.servers, [{ url: "https://{node}:{port}", variables: { node: { default: "127.0.0.1" }, port: { default: "9443" } } }]);
  assert.equal(doc.info.version, "0.0.0-test");
  assert.ok(doc.components.securitySchemes.installCode);
  const served = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item as object).map((method) => `${method} ${path}`));
  assert.deepEqual(served.sort(), ROUTES.map(({ route }) => `${route.method} ${route.path}`).sort());
  const status = doc.paths["/v1/installer/status"].get;
  assert.deepEqual(Object.keys(status.responses).sort(), ["200", "400", "401", "429", "431", "500"]);
  assert.ok(status.responses["429"].headers["Retry-After"]);
  assert.match(JSON.stringify(doc.components.schemas.Unattended), /A PUT of the config or a started install hands the draft to the person/);
});

test("GET /openapi.json serves test/fixtures/openapi.json byte for byte (its version line the app's), whichever routes were asked for before it", async (t) => {
  const fixture = await readFile(join(ROOT, "test/fixtures/openapi.json"), "utf8");
  const expected = JSON.stringify(JSON.parse(fixture.replace(/^ {4}"version": "[^"]*"/m, '    "version": "0.0.0-test"')));
  assert.equal(await servedDocument(t), expected);

  const later = await inProcessApp(t);
  for (const path of ["/v1/installer/install/attempts", "/v1/installer/config/schema", "/v1/installer/options", "/v1/installer/config"]) {
    assert.equal((await later.request(path)).status, 200, path);
  }
  for (let i = 0; i < 2; i++) assert.equal((await later.request("/openapi.json", { code: null })).text, expected);
});

test("GET /openapi.json: 500 INTERNAL when the document cannot be made; a later request still serves it", async (t) => {
  const installer = await inProcessApp(t);
  const versionOf = Object.getOwnPropertyDescriptor(installer.services, "version")!;
  Object.defineProperty(installer.services, "version", {
    configurable: true,
    get() {
      throw new Error("boom");
    },
  });
  assertRouteProblem(route, await installer.request("/openapi.json", { code: null }), 500, "INTERNAL");
  Object.defineProperty(installer.services, "version", versionOf);
  assertAnswers(route, 200, await installer.request("/openapi.json", { code: null }));
});

test("the served OpenAPI document passes Redocly's recommended lint with zero errors and zero warnings", async (t) => {
  const folder = await mkdtemp(join(tmpdir(), "stratum-openapi-"));
  const file = join(folder, "openapi.json");
  await writeFile(file, await servedDocument(t));
  const { stdout, stderr } = await promisify(execFile)(join(ROOT, "node_modules/.bin/redocly"), ["lint", file, "--format", "json"], { cwd: folder }).catch((err) => err);
  const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string; severity: string }[] };
  const found = report.problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message}`);
  assert.deepEqual(found, [], stderr);
  assert.deepEqual([report.totals.errors, report.totals.warnings], [0, 0]);
  console.log(`redocly lint (recommended): ${report.totals.errors} errors, ${report.totals.warnings} warnings`);
});

/** Spectral's DiagnosticSeverity, by its numbers. */
const SEVERITIES = ["error", "warning", "information", "hint"] as const;

test("the served OpenAPI document passes Spectral's spectral:oas ruleset with zero errors and zero warnings", async (t) => {
  const spectral = new Spectral();
  // The rulesets package declares `oas` more loosely than the core's RulesetDefinition; it is the ruleset `extends: spectral:oas` loads.
  spectral.setRuleset({ extends: [[oas as RulesetDefinition, "recommended"]] });
  const results = await spectral.run(await servedDocument(t));
  const found = results.map((r) => `${SEVERITIES[r.severity]} ${r.code} at ${r.path.join("/")}: ${r.message}`);
  assert.deepEqual(found.filter((line) => line.startsWith("error ") || line.startsWith("warning ")), []);
  const count = (severity: string) => found.filter((line) => line.startsWith(`${severity} `)).length;
  console.log(`spectral lint (spectral:oas): ${count("error")} errors, ${count("warning")} warnings, ${found.length} results in all`);
});

test("swagger-parser validates the served OpenAPI document against the OpenAPI 3.1 schema", async (t) => {
  const api = await SwaggerParser.validate(JSON.parse(await servedDocument(t)));
  assert.equal("openapi" in api && api.openapi, "3.1.0");
});

/**
 * The seeds (the user's own API pages for GET /status and POST /install/recheck-readiness) as their pages
 * show them: each description at its place in the generated document. The pages render descriptions as
 * Markdown, so list markers, code ticks and typographic quotes are compared as shown.
 */
const SEED_STATUS_MODE =
  "How this node is installed: the first answer of stage 2. Each mode is a deployment profile of the release model and the node’s part in it. " +
  "single-node: one node runs everything (profile single-node; node.yaml mode: single-node). " +
  "hyperconverged-init: the first node of a hyperconverged cluster, the one that founds it (“HA init”; node.yaml mode: ha-init). " +
  "hyperconverged-join: a node that joins a hyperconverged cluster (“HA join”; node.yaml mode: join). " +
  "disaggregated-control-plane: a control-plane-only node that compute and storage nodes join later (profile disaggregated, a preview whose design is open,). " +
  "GET /v1/installer/options says which are available; the others are refused at mode, with the reason.";

const SEED_DESCRIPTIONS: [string, string][] = [
  ["status get summary", "Where the install stands."],
  ["status get description", "The phase (configuring, installing, done, failed), the installer’s version, the draft’s install mode and profile, whether the current draft config is valid, and what became of a node.yaml stage 1 brought for an unattended install (unattended)."],
  ["status 200", "The install’s status."],
  ["status 200 body", "mode is the draft’s install mode: its mode, or single-node for a structured draft with none; for a raw node.yaml, the install mode its mode resolves to. Absent when a raw node.yaml does not parse or names no mode the installer knows."],
  ["status 200 body phase", "configuring until an install starts; installing while one runs; done after one succeeded; failed after the latest one failed."],
  ["status 200 body version", "The installer’s version line."],
  ["status 200 body mode", SEED_STATUS_MODE],
  ["status 200 body profile", "The draft’s profile: the one its install mode installs (single-node for a draft with no mode, and for a raw node.yaml whose mode cannot be read)."],
  ["status 200 body url", "Where this API is served."],
  ["status 200 body configValid", "Whether the current draft validates."],
  ["status 200 body attempt", "Install attempts started so far (0 before the first)."],
  ["status 200 body step", "The step running now, while installing."],
  ["status 200 body blockers", "Why POST /install would be refused right now, whatever the config says: for example, the offline payload did not load (PAYLOAD_NOT_LOADED). Empty or absent when an install can start. A front end shows these before offering the install."],
  ["status 200 body blockers items code", "Stable identifier, e.g. PAYLOAD_NOT_LOADED."],
  ["status 200 body blockers items detail", "What is wrong and how to fix it, for a person."],
  ["status 200 body unattended", "An unattended stage 2. Stage 1 found a node.yaml beside install.yaml on the install medium and left it on the node; the service took it at its first start, made it the draft (source yaml), removed the file, and either started the install by itself or left it waiting. Absent when there was no such file. It records what became of the file. Only a blocked one that waits (autoStart) changes later: once its blockers clear it is decided again as at the first start, so state becomes started with attempt (or invalid, should the machine no longer accept it); and a person who takes the draft over ends the wait. A later draft or install is the person’s."],
  ["status 200 body unattended state", "started: it validated and the service started install attempt attempt with no install code (at once, or once its blockers cleared); follow it like any install. invalid: it did not validate (errors), so nothing started; it is the draft, to fix and install. blocked: it validated, but blockers refused the install, so nothing started; it is the draft. While autoStart is true it starts by itself once they clear; otherwise a person installs it."],
  ["status 200 body unattended autoStart", "blocked only. True while the install still starts by itself once the blockers clear: nobody has changed the draft or started an install since the file was taken. A PUT of the config or a started install hands the draft to the person and turns this off for good. Absent otherwise."],
  ["status 200 body unattended origin", "Where stage 1 found it, e.g. node.yaml on the partition labeled STRATUM. Empty when the node’s install record does not say."],
  ["status 200 body unattended takenAt", "When the service took it."],
  ["status 200 body unattended attempt", "The install attempt it started (started only)."],
  ["status 200 body unattended errors", "Why it did not validate (invalid only), by node.yaml key."],
  ["status 200 body unattended errors items field", "The structured field (network.floatingIpCidrs[1]); empty for the whole config. For a raw YAML draft, the node.yaml key."],
  ["status 401", "No install code, or the wrong one."],
  ["status 401 body", "RFC 7807 problem details, the control plane’s shape."],
  ["status 401 body errors", "Field errors, for INVALID_CONFIG."],
  ["status 429", "Too many wrong install codes; wait for Retry-After."],
  ["status 429 header Retry-After", "Seconds until the next attempt is considered."],
  ["status 500", "The installer failed to answer."],
  ["recheck post summary", "Wait for READY again, without running the install."],
  ["recheck post description", "Starts a new attempt that runs only the readiness wait: firstboot is not run, node.yaml is not written, and the draft is not touched. For an install whose last attempt failed at the readiness step (the cloud was not READY within the wait; a slow Ceph bootstrap or image pull is enough), which is the case when the verdict and the report say recheckReadiness. The attempt writes the same events, verdict and report as any other; its only step is readiness. 409 RECHECK_NOT_APPLICABLE when the last attempt did not fail at the readiness step, 409 INSTALL_RUNNING while an attempt runs."],
  ["recheck 202", "The readiness wait started."],
  ["recheck 202 body phase", "configuring until an install starts; installing while one runs; done after one succeeded; failed after the latest one failed."],
  ["recheck 401", "No install code, or the wrong one."],
  ["recheck 409", "An install is running or has succeeded."],
  ["recheck 409 body", "RFC 7807 problem details, the control plane’s shape."],
  ["recheck 429", "Too many wrong install codes; wait for Retry-After."],
  ["recheck 500", "The installer failed to answer."],
];

/**
 * `strings`: the fields a seed shows as a plain string, with no allowed values. A client generated from the document
 * must take a value a later installer adds (a step, a profile, a problem's code) as the seeds' own clients do.
 */
const SEED_SHAPES: [string, { required: string[]; enums?: Record<string, string[]>; strings?: string[] }][] = [
  ["status 200 body", { required: ["phase", "version", "profile", "hostname", "url", "configValid", "attempt"], enums: { phase: ["configuring", "installing", "done", "failed"], mode: ["single-node", "hyperconverged-init", "hyperconverged-join", "disaggregated-control-plane"] }, strings: ["version", "profile", "hostname", "url", "step"] }],
  ["status 200 body blockers items", { required: ["code", "detail"], strings: ["code", "detail"] }],
  ["status 200 body unattended", { required: ["state", "origin", "takenAt"], enums: { state: ["started", "invalid", "blocked"] }, strings: ["origin"] }],
  ["status 200 body unattended errors items", { required: ["field", "message"], strings: ["field", "message"] }],
  ["status 401 body", { required: ["type", "title", "status", "code", "requestId"], strings: ["type", "title", "detail", "code", "requestId"] }],
  ["recheck 202 body", { required: ["attempt", "phase", "eventsUrl"], enums: { phase: ["configuring", "installing", "done", "failed"] }, strings: ["eventsUrl"] }],
  ["recheck 409 body", { required: ["type", "title", "status", "code", "requestId"], strings: ["type", "title", "detail", "code", "requestId"] }],
];

/** As a page shows a Markdown description: no list markers or code ticks, typographic quotes, one line. */
function shown(markdown: string): string {
  return markdown
    .replace(/^\s*[-*] /gm, "")
    .replace(/`/g, "")
    .replace(/'/g, "’")
    .replace(/"([^"]*)"/g, "“$1”")
    .replace(/\s+/g, " ")
    .trim();
}

type Node = { $ref?: string; description?: string; properties?: Record<string, Node>; items?: Node; required?: string[]; enum?: string[] } & Record<string, any>;

/** "status 200 body unattended errors items field" → the node at that place, following $refs; its own description first. */
function locate(doc: any, where: string): Node {
  const resolve = (node: Node): Node => (node.$ref ? { ...resolve(doc.components.schemas[node.$ref.split("/").at(-1)!]), ...(node.description ? { description: node.description } : {}) } : node);
  const [endpoint, ...rest] = where.split(" ");
  const [path, method] = endpoint === "status" ? ["/v1/installer/status", "get"] : ["/v1/installer/install/recheck-readiness", "post"];
  let node: any = doc.paths[path][method];
  let words = rest;
  if (words[0] === method) return { description: node[words[1]!] };
  node = node.responses[words[0]!];
  words = words.slice(1);
  if (words[0] === "header") return node.headers[words[1]!];
  if (words[0] === "body") {
    node = resolve(Object.values(node.content as Record<string, { schema: Node }>)[0]!.schema);
    for (const word of words.slice(1)) node = resolve(word === "items" ? node.items : node.properties[word]);
  }
  return node;
}

test("the served document carries the seeds' descriptions, required fields and allowed values where the seeds put them", async (t) => {
  const doc = JSON.parse(await servedDocument(t));
  const wrong = SEED_DESCRIPTIONS.filter(([where, text]) => shown(locate(doc, where).description ?? "") !== text).map(
    ([where, text]) => `${where}:\n  seed:     ${text}\n  document: ${shown(locate(doc, where).description ?? "(none)")}`,
  );
  assert.deepEqual(wrong, []);
  for (const [where, { required, enums = {}, strings = [] }] of SEED_SHAPES) {
    const node = locate(doc, where);
    assert.deepEqual([...(node.required ?? [])].sort(), [...required].sort(), where);
    for (const [property, values] of Object.entries(enums)) assert.deepEqual(locate(doc, `${where} ${property}`).enum, values, `${where} ${property}`);
    for (const property of strings) {
      const field = locate(doc, `${where} ${property}`);
      assert.deepEqual([field.type, field.enum], ["string", undefined], `${where} ${property}: a plain string in the seed`);
    }
  }
});

test("StructuredDraft is any object or a Draft, and the Draft schema is in the document: every field a draft has, typed, as the validator takes them", async (t) => {
  const doc = JSON.parse(await servedDocument(t));
  const stored = ajvFor(doc).compile(doc.components.schemas.StructuredDraft);
  for (const kept of [VALID_DRAFT, { hostname: 42, extra: true }, {}]) assert.ok(stored(kept), "a draft is stored even when it does not validate");
  assert.equal(stored([]), false);
  assert.ok(doc.components.schemas.StructuredDraft.anyOf.some((s: { $ref?: string }) => s.$ref === "#/components/schemas/Draft"));
  const draft = doc.components.schemas.Draft;
  assert.ok(draft, "components.schemas.Draft");
  const accepts = ajvFor(doc).compile(draft);
  for (const valid of [VALID_DRAFT, INIT_DRAFT, {}]) assert.ok(accepts(valid), JSON.stringify(accepts.errors));
  for (const wrong of [{ hostname: 42 }, { network: { adress: "10.0.0.1/24" } }, { mode: "two-node" }, { extra: true }]) {
    assert.equal(accepts(wrong), false, `${JSON.stringify(wrong)} is not a draft's shape`);
  }
});

test("every example in the Draft schema is a value the installer accepts at that field: a client's try-it or mock server is handed nothing the validator refuses", async (t) => {
  const doc = JSON.parse(await servedDocument(t));
  const examples: Array<{ path: string[]; example: unknown }> = [];
  const walk = (schema: { properties?: Record<string, object>; example?: unknown; examples?: unknown[] }, path: string[]) => {
    if ("example" in schema) examples.push({ path, example: schema.example });
    for (const example of schema.examples ?? []) examples.push({ path, example });
    for (const [name, inner] of Object.entries(schema.properties ?? {})) walk(inner, [...path, name]);
  };
  walk(doc.components.schemas.Draft, []);
  assert.ok(examples.some((e) => e.path.join(".") === "cluster.joinToken"), "the examples are found");
  // The join address is the cloud API's (8443 unless named), never the installer's own port.
  assert.doesNotMatch(String(examples.find((e) => e.path.join(".") === "cluster.joinAddress")?.example), /:9443$/);
  const installer = await inProcessApp(t);
  // Each example alone in a draft of the mode its field belongs to: a join's cluster fields in a join draft, an init's name in an init's.
  for (const { path, example } of examples) {
    const mode = path[0] === "cluster" ? (path[1] === "name" ? "hyperconverged-init" : "hyperconverged-join") : "single-node";
    const draft: Record<string, unknown> = { mode };
    let at = draft;
    for (const name of path.slice(0, -1)) at = (at[name] ??= {}) as Record<string, unknown>;
    if (path.length > 0) at[path.at(-1)!] = example;
    const reply = await installer.request("/v1/installer/config/validate", { method: "POST", body: draft });
    const field = path.join(".");
    const refused = (reply.json as { errors: Array<{ field: string; message: string }> }).errors.filter((e) => e.field === field || e.field.startsWith(`${field}[`));
    assert.deepEqual(refused, [], `the example of ${field || "the draft"}, ${JSON.stringify(example)}, is refused`);
  }
});

test("X-Request-Id, sent on every answer, is declared on every response of every operation (a generated client reads it for a support request)", async (t) => {
  const doc = JSON.parse(await servedDocument(t));
  assert.equal(doc.components.headers.RequestId.schema.type, "string");
  let responses = 0;
  for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, { responses: Record<string, { headers?: Record<string, { $ref?: string }> }> }>>)) {
    for (const [method, operation] of Object.entries(operations)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        responses += 1;
        assert.equal(response.headers?.["X-Request-Id"]?.$ref, "#/components/headers/RequestId", `${method} ${path} ${status}`);
      }
    }
  }
  assert.ok(responses > 100, `${responses} responses`);
  const installer = await inProcessApp(t);
  for (const [path, code] of [["/v1/installer/status", undefined], ["/v1/installer/status", null], ["/healthz", null]] as const) {
    const reply = await installer.request(path, { code });
    assert.match(String(reply.headers["x-request-id"]), /^[0-9a-f-]{36}$/, `${path} ${reply.status}`);
  }
});

test("every media type an operation's body is taken in is declared in its requestBody, and every other is refused 415", async (t) => {
  const doc = JSON.parse(await servedDocument(t));
  const installer = await inProcessApp(t);
  const samples: Record<string, string> = {
    "application/json": "{}",
    "application/merge-patch+json": "{}",
    "application/yaml": "mode: single-node\n",
    "text/yaml": "mode: single-node\n",
    "text/plain": "mode: single-node\n",
    "application/x-www-form-urlencoded": "mode=single-node",
  };
  let checked = 0;
  for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>>)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!operation.requestBody || path.includes("{")) continue;
      for (const [type, body] of Object.entries(samples)) {
        const reply = await installer.request(path, { method: method.toUpperCase(), body, contentType: type });
        const declared = Object.hasOwn(operation.requestBody.content, type);
        assert.equal(reply.status === 415, !declared, `${method} ${path} with ${type}: ${reply.status} ${reply.text}`);
        checked += 1;
      }
    }
  }
  assert.ok(checked >= 4 * Object.keys(samples).length, `${checked} checked`);
});

test("no parameter is nullable: a URL or header carries no null, and one declared nullable is a value a client sends and is refused", async (t) => {
  const doc = JSON.parse(await servedDocument(t));
  const parameters = Object.values(doc.paths as Record<string, Record<string, { parameters?: Array<{ name: string; schema: { type: unknown } }> }>>).flatMap((ops) => Object.values(ops).flatMap((op) => op.parameters ?? []));
  assert.ok(parameters.length >= 5);
  for (const parameter of parameters) assert.ok(!([] as unknown[]).concat(parameter.schema.type).includes("null"), `${parameter.name}: ${JSON.stringify(parameter.schema)}`);
  const after = parameters.find((p) => p.name === "after")!.schema;
  assert.deepEqual(after, { type: "integer", minimum: 0, description: "Only events with a greater seq." });
});

test("GET /openapi.json: a 507's description names no remedy of one cause alone (the detail's follows its cause: free space, a remount, permissions)", async (t) => {
  const doc = JSON.parse(await servedDocument(t));
  const descriptions = Object.values(doc.paths).flatMap((item) => Object.values(item as Record<string, { responses: Record<string, { description: string }> }>).flatMap((op) => op.responses["507"]?.description ?? []));
  assert.ok(descriptions.length > 0);
  for (const description of descriptions) {
    assert.doesNotMatch(description, /free space|remount|chmod|chown/i);
    assert.match(description, /detail/);
    // Each cause the detail can name (core/fs/storage-error.ts), not the full disk alone.
    for (const cause of [/full disk/, /read-only/, /permissions/, /in the way/, /I\/O error/, /open files/, /state dir gone/]) assert.match(description, cause);
  }
});

test("every operation documents the 400 a request that is not valid HTTP gets before it is routed (cli/serve.ts), and a 400 says what of the request it refuses", async (t) => {
  const doc = JSON.parse(await servedDocument(t));
  const wrong: string[] = [];
  for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, { requestBody?: unknown; parameters?: Array<{ in: string }>; responses: Record<string, { description: string }> }>>)) {
    for (const [method, operation] of Object.entries(operations)) {
      const where = `${method.toUpperCase()} ${path}`;
      const description = operation.responses["400"]?.description;
      if (description === undefined) {
        wrong.push(`${where}: no 400`);
        continue;
      }
      if (!/not valid HTTP/.test(description)) wrong.push(`${where}: its 400 does not say a request that is not valid HTTP gets it: ${description}`);
      if (!operation.requestBody && /\bbody\b/.test(description)) wrong.push(`${where} takes no body, but its 400 names one: ${description}`);
      const inQuery = (operation.parameters ?? []).some((p) => p.in === "query");
      if (inQuery && !/query/.test(description)) wrong.push(`${where}: its 400 does not name the query it refuses: ${description}`);
    }
  }
  assert.deepEqual(wrong, []);
});
