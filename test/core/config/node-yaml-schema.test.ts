import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { draftToNodeYaml, nodeYamlJsonSchema } from "../../../core/config/index.ts";
import { wellShapedDraft } from "./arbitraries.ts";
import { HA_JOIN } from "./fixtures.ts";

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
