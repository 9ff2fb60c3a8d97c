import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { DraftSchema, draftToNodeYaml, nodeYamlJsonSchema, nodeYamlToDraft, parseYamlSafely, renderNodeYaml } from "../../../core/config/index.ts";
import { wellShapedDraft } from "./arbitraries.ts";
import { HA_INIT, HA_JOIN } from "./fixtures.ts";

describe("nodeYamlToDraft / draftToNodeYaml", () => {
  it("renames every key and the mode, both ways", () => {
    const nodeYaml = draftToNodeYaml(HA_INIT);
    assert.deepEqual(Object.keys(nodeYaml), ["mode", "hostname", "timezone", "network", "storage", "cluster", "admin"]);
    assert.equal(nodeYaml.mode, "ha-init");
    assert.deepEqual(nodeYaml.storage, { osd_devices: ["/dev/sdb", "/dev/sdc"] });
    assert.deepEqual(Object.keys(nodeYaml.network as object), ["interface", "address", "gateway", "dns", "ntp", "vip", "floating_ip_cidrs"]);
    assert.deepEqual(Object.keys(nodeYaml.admin as object), ["ssh_authorized_keys", "password_hash"]);
    assert.deepEqual(nodeYamlToDraft(nodeYaml), HA_INIT);
  });

  it("keeps unknown keys and values as they are, so validation can name them", () => {
    const nodeYaml = { mode: "hyperconverged-init", network: { gatway: "x", floatingIpCidrs: ["a"] }, extra: { join_token: 1 } };
    assert.deepEqual(nodeYamlToDraft(nodeYaml), nodeYaml);
  });

  it("leaves values that are not objects alone", () => {
    for (const value of [null, 3, "x", [1], undefined]) assert.deepEqual(nodeYamlToDraft(value), value);
    assert.deepEqual(nodeYamlToDraft({ network: "eno1", storage: [1] }), { network: "eno1", storage: [1] });
  });

  it("keeps a __proto__ key as data", () => {
    const draft = nodeYamlToDraft(JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
    assert.ok(Object.hasOwn(draft, "__proto__"));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe("renderNodeYaml", () => {
  it("writes snake_case keys, the node.yaml mode name and one line per SSH key", () => {
    const text = renderNodeYaml(HA_JOIN);
    assert.match(text, /^mode: "join"$/m);
    assert.match(text, /^  join_address: "10\.20\.0\.10:9443"$/m);
    assert.match(text, /^  floating_ip_cidrs:$/m);
    assert.match(text, /^    - "ssh-ed25519 AAAA\S+ ops@example"$/m);
    assert.doesNotMatch(text, /^\s*-?\s*[a-z]+[A-Z]\w*:/m, "no camelCase key");
  });

  it("quotes every string, so no YAML reader takes one for something else", () => {
    assert.match(renderNodeYaml({ hostname: "yes", timezone: "2026-11-01" }), /hostname: "yes"\ntimezone: "2026-11-01"/);
  });

  it("round-trips: structured → node.yaml text → structured is lossless", () => {
    fc.assert(
      fc.property(wellShapedDraft, (draft) => {
        assert.ok(DraftSchema.safeParse(draft).success);
        const parsed = parseYamlSafely(renderNodeYaml(draft));
        assert.ok(parsed.ok, JSON.stringify(parsed));
        assert.deepEqual(nodeYamlToDraft(parsed.value), draft);
      }),
      { numRuns: 300 },
    );
  });
});

interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean;
  items?: JsonSchema;
  enum?: unknown[];
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  description?: string;
}

/** The JSON Schema keywords the node.yaml schema uses, checked the way an editor would. */
function schemaErrors(schema: JsonSchema, value: unknown, at = ""): string[] {
  const errors: string[] = [];
  if (schema.enum && !schema.enum.includes(value)) errors.push(`${at}: not in enum`);
  if (schema.type === "object") {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return [`${at}: not an object`];
    for (const [key, child] of Object.entries(value)) {
      const property = schema.properties?.[key];
      if (property) errors.push(...schemaErrors(property, child, `${at}/${key}`));
      else if (schema.additionalProperties === false) errors.push(`${at}/${key}: additional property`);
    }
  }
  if (schema.type === "array") {
    if (!Array.isArray(value)) return [`${at}: not an array`];
    if (schema.maxItems !== undefined && value.length > schema.maxItems) errors.push(`${at}: too many items`);
    value.forEach((item, i) => schema.items && errors.push(...schemaErrors(schema.items, item, `${at}/${i}`)));
  }
  if (schema.type === "string") {
    if (typeof value !== "string") return [`${at}: not a string`];
    const length = [...value].length; // JSON Schema counts code points
    if (length < (schema.minLength ?? 0) || length > (schema.maxLength ?? Infinity)) errors.push(`${at}: length`);
  }
  return errors;
}

function objectSchemas(schema: JsonSchema, at = ""): Array<[string, JsonSchema]> {
  const children = Object.entries(schema.properties ?? {}).flatMap(([key, child]) => objectSchemas(child, `${at}/${key}`));
  return schema.type === "object" ? [[at, schema], ...children] : children;
}

describe("nodeYamlJsonSchema", () => {
  const schema = nodeYamlJsonSchema() as JsonSchema & { $schema?: string; title?: string };

  it("is a titled JSON Schema 2020-12 document", () => {
    assert.equal(schema.$schema, "https://json-schema.org/draft/2020-12/schema");
    assert.equal(schema.title, "Stratum node.yaml");
  });

  it("lists snake_case keys with descriptions and the node.yaml mode names", () => {
    assert.deepEqual(Object.keys(schema.properties?.network?.properties ?? {}), ["interface", "address", "gateway", "dns", "ntp", "vip", "floating_ip_cidrs"]);
    assert.deepEqual(Object.keys(schema.properties?.admin?.properties ?? {}), ["ssh_authorized_keys", "password_hash"]);
    assert.deepEqual(schema.properties?.mode?.enum, ["single-node", "ha-init", "join", "control-plane"]);
    for (const [at, object] of objectSchemas(schema)) {
      for (const [key, property] of Object.entries(object.properties ?? {})) {
        assert.match(key, /^[a-z]+(_[a-z]+)*$/, `${at}/${key}`);
        assert.ok(property.description, `${at}/${key} has a description`);
      }
    }
  });

  it("refuses unknown keys at every level", () => {
    for (const [at, object] of objectSchemas(schema)) assert.equal(object.additionalProperties, false, at || "top level");
    assert.deepEqual(schemaErrors(schema, { network: { floatingIpCidrs: [] } }), ["/network/floatingIpCidrs: additional property"]);
    assert.deepEqual(schemaErrors(schema, { mode: "hyperconverged-join" }), ["/mode: not in enum"]);
  });

  it("accepts what an install writes", () => {
    assert.deepEqual(schemaErrors(schema, draftToNodeYaml(HA_JOIN)), []);
    fc.assert(fc.property(wellShapedDraft, (draft) => assert.deepEqual(schemaErrors(schema, draftToNodeYaml(draft)), [])));
  });
});
