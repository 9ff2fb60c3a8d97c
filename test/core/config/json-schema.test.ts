import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { parse } from "yaml";
import { draftToNodeYaml, nodeYamlJsonSchema, renderNodeYaml, validateDraft } from "../../../core/config/index.ts";
import { hostnameProblem, parseCidr, parseHostOrIp, parseIp } from "../../../core/config/net.ts";
import { mergePatch } from "../../../core/draft/service.ts";
import type { Draft } from "../../../core/config/index.ts";
import { VALID_DRAFT, VALID_NODE_YAML } from "../../helpers/fixtures.ts";
import { CTX, HA_INIT, HA_JOIN, SINGLE_NODE } from "./fixtures.ts";

const schema = nodeYamlJsonSchema() as any;

// A third-party validator, as editors use: ajv's defaults, with `format` an annotation (2020-12's default),
// so the patterns and required fields do the refusing. Anything ajv warns about fails the test.
const warnings: unknown[][] = [];
const ajv = new Ajv2020({ validateFormats: false, allErrors: true, logger: { log: () => {}, warn: (...a) => warnings.push(a), error: (...a) => warnings.push(a) } });
const accepts = ajv.compile(schema);

function errorsOf(nodeYaml: unknown): string[] {
  return accepts(nodeYaml) ? [] : (accepts.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`);
}

const nodeYamlOf = (draft: Draft) => parse(renderNodeYaml(draft)) as Record<string, any>;

describe("the node.yaml JSON Schema, checked by ajv", () => {
  it("compiles without a warning, with its $id", () => {
    assert.deepEqual(warnings, []);
    assert.equal(schema.$schema, "https://json-schema.org/draft/2020-12/schema");
    assert.equal(schema.$id, "urn:stratum:installer:schema:node.yaml");
  });

  it("accepts the sample node.yaml and what an install writes for every mode", () => {
    assert.deepEqual(errorsOf(parse(VALID_NODE_YAML)), []);
    for (const draft of [VALID_DRAFT as Draft, SINGLE_NODE, HA_INIT, HA_JOIN]) assert.deepEqual(errorsOf(nodeYamlOf(draft)), [], draft.mode);
  });

  it("refuses a node.yaml holding only a hostname, naming what is missing", () => {
    const errors = errorsOf(parse("hostname: x\n"));
    for (const key of ["mode", "network", "admin"]) assert.ok(errors.includes(`/ must have required property '${key}'`), errors.join("\n"));
  });

  it("refuses mode ha-init without a vip, and join without its address and token", () => {
    const haInit = nodeYamlOf(HA_INIT);
    delete haInit.network.vip;
    assert.ok(errorsOf(haInit).includes("/network must have required property 'vip'"), errorsOf(haInit).join("\n"));
    const join = nodeYamlOf(HA_JOIN);
    delete join.cluster;
    assert.ok(errorsOf(join).includes("/ must have required property 'cluster'"), errorsOf(join).join("\n"));
  });

  it("refuses an empty key list as the only login, as the validator does", () => {
    const nodeYaml = parse(VALID_NODE_YAML);
    nodeYaml.admin.ssh_authorized_keys = [];
    assert.notDeepEqual(errorsOf(nodeYaml), []);
    assert.notDeepEqual(validateDraft({ ...VALID_DRAFT, admin: { sshAuthorizedKeys: [] } }, CTX), []);
  });

  it("requires what the validator requires, per mode: each field of a valid draft left out in turn", () => {
    const leaves = (value: unknown, path: string[] = []): string[][] =>
      typeof value === "object" && value !== null && !Array.isArray(value) ? Object.entries(value).flatMap(([key, child]) => leaves(child, [...path, key])) : [path];
    const without = (draft: object, path: string[]) => mergePatch(draft, path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), null)) as Draft;
    for (const draft of [VALID_DRAFT as Draft, SINGLE_NODE, HA_INIT, HA_JOIN]) {
      for (const path of leaves(draft)) {
        const lacking = without(draft, path);
        const required = validateDraft(lacking, CTX).some((e) => / is required|needs /.test(e.message));
        assert.equal(errorsOf(draftToNodeYaml(lacking)).length > 0, required, `${draft.mode} without ${path.join(".")}`);
      }
    }
  });

  it("refuses mistyped addresses and hostnames", () => {
    const cases: [string, object][] = [
      ["/hostname", { hostname: "Node_01" }],
      ["/hostname", { hostname: "10.20.0.11" }],
      ["/network/address", { network: { address: "10.20.0.11" } }],
      ["/network/address", { network: { address: "10.20.0.11/33" } }],
      ["/network/gateway", { network: { gateway: "10.20.0.1/24" } }],
      ["/network/gateway", { network: { gateway: "gw.example.net" } }],
      ["/network/dns/0", { network: { dns: ["10.20.0.256"] } }],
      ["/network/ntp/0", { network: { ntp: ["ntp .example.net"] } }],
      ["/network/floating_ip_cidrs/0", { network: { floating_ip_cidrs: ["203.0.113.0"] } }],
      ["/cluster/join_address", { cluster: { join_address: "https://10.20.0.10:9443" } }],
    ];
    for (const [where, patch] of cases) {
      const errors = errorsOf(mergePatch(parse(VALID_NODE_YAML), patch));
      assert.ok(errors.some((e) => e.startsWith(`${where} must match pattern`)), `${JSON.stringify(patch)}: ${errors.join("\n")}`);
    }
  });
});

describe("the schema's patterns never refuse what the validator accepts", () => {
  const at = (...path: string[]) => ajv.compile(path.reduce((node, key) => node[key], schema));
  const joinAddressAccepted = (text: string) =>
    !validateDraft(mergePatch(HA_JOIN, { cluster: { joinAddress: text } }), CTX).some((e) => e.field === "cluster.joinAddress");
  const KINDS: [string, (text: string) => boolean, ReturnType<typeof at>][] = [
    ["hostname", (text) => hostnameProblem(text) === undefined, at("properties", "hostname")],
    ["IP address", (text) => parseIp(text).ok, at("properties", "network", "properties", "gateway")],
    ["CIDR", (text) => parseCidr(text).ok, at("properties", "network", "properties", "address")],
    ["hostname or IP address", (text) => parseHostOrIp(text).ok, at("properties", "network", "properties", "ntp", "items")],
    ["join address", joinAddressAccepted, at("properties", "cluster", "properties", "join_address")],
  ];
  const host = fc.oneof(fc.ipV4(), fc.ipV6(), fc.domain());
  const candidate = fc.oneof(
    host,
    fc.tuple(fc.oneof(fc.ipV4(), fc.ipV6()), fc.constantFrom("", "0", "00"), fc.nat(140)).map(([ip, zeros, prefix]) => `${ip}/${zeros}${prefix}`),
    fc.tuple(host, fc.nat(70_000)).map(([name, port]) => `${name}:${port}`),
    fc.tuple(host, fc.option(fc.nat(70_000))).map(([name, port]) => `[${name}]${port === null ? "" : `:${port}`}`),
    fc.string({ unit: fc.constantFrom(..."0123456789abcdefxyzABC:./-[]% "), minLength: 1, maxLength: 24 }),
  );

  for (const [kind, validatorAccepts, schemaAccepts] of KINDS) {
    it(kind, () => {
      fc.assert(fc.property(candidate, (text) => !validatorAccepts(text) || schemaAccepts(text)), { numRuns: 1500 });
    });
  }
});
