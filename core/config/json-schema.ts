import { z } from "zod";
import { MODE_TABLE, MODES, type Mode } from "../common/model.ts";
import { NodeYamlSchema } from "./node-yaml.ts";
import { toSnake } from "./paths.ts";
import { DISKS, FOR_EVERY_MODE, FOR_MODE, LOGIN, needsDisks } from "./rules/required.ts";
import { type Path, TEXT_KINDS, type TextKind } from "./schema.ts";

/** The same on every node and release: editors and validators key their caches by it, not by the node's address. */
const NODE_YAML_SCHEMA_ID = "urn:stratum:installer:schema:node.yaml";

// The patterns flag a typo as it is typed and never refuse what the validator accepts; the rules say
// precisely what is wrong (a gateway outside the subnet, an IPv6 group too long).
const OCTET = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
const IPV4 = `(?:${OCTET}\\.){3}${OCTET}`;
const IPV6 = "[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*";
const LABEL = "[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?";
// A letter or "-" before any other character: digits and dots alone read as an IP address.
const HOSTNAME = `(?=[0-9.]*[a-z-])${LABEL}(?:\\.${LABEL})*`;
const PORT = ":\\d{1,5}";
const whole = (...alternatives: string[]) => `^(?:${alternatives.join("|")})$`;

const TEXT_SCHEMAS: Record<TextKind, Record<string, unknown>> = {
  hostname: { format: "hostname", pattern: whole(HOSTNAME) },
  ip: { pattern: whole(IPV4, IPV6), anyOf: [{ format: "ipv4" }, { format: "ipv6" }] },
  cidr: { pattern: whole(`${IPV4}/0?(?:[0-2]?\\d|3[0-2])`, `${IPV6}/(?:0?\\d?\\d|1[01]\\d|12[0-8])`) },
  "host-or-ip": { pattern: whole(IPV4, IPV6, HOSTNAME) },
  "host-port": { pattern: whole(`(?:${IPV4}|${HOSTNAME})(?:${PORT})?`, IPV6, `\\[(?:${IPV4}|${IPV6}|${HOSTNAME})\\](?:${PORT})?`) },
};

interface Fragment {
  [keyword: string]: unknown;
  required?: string[];
  properties?: Record<string, Fragment>;
}

const NOT_EMPTY: Fragment = { type: "array", minItems: 1 };

const snake = (path: Path) => path.map((segment) => toSnake(String(segment)));

/** `inner` at `path`, with every key on the way required. */
function requiredAt([key, ...rest]: string[], inner: Fragment = {}): Fragment {
  if (key === undefined) return inner;
  const below = requiredAt(rest, inner);
  return Object.keys(below).length === 0 ? { type: "object", required: [key] } : { type: "object", required: [key], properties: { [key]: below } };
}

function merge(a: Fragment, b: Fragment): Fragment {
  const properties = { ...a.properties };
  for (const [key, schema] of Object.entries(b.properties ?? {})) properties[key] = merge(properties[key] ?? {}, schema);
  const required = [...new Set([...(a.required ?? []), ...(b.required ?? [])])];
  return { ...a, ...b, ...(a.properties || b.properties ? { properties } : {}), ...(required.length > 0 ? { required } : {}) };
}

function login(): Fragment {
  const [admin = "", keys = ""] = snake(LOGIN.keys);
  const [, hash = ""] = snake(LOGIN.hash);
  return requiredAt([admin], { anyOf: [requiredAt([keys], NOT_EMPTY), requiredAt([hash])] });
}

function forMode(mode: Mode): Fragment[] {
  const fragments = [
    ...(FOR_MODE[mode] ?? []).map(({ path }) => requiredAt(snake(path))),
    ...(needsDisks(mode) ? [requiredAt(snake(DISKS), NOT_EMPTY)] : []),
  ];
  if (fragments.length === 0) return [];
  return [{ if: { properties: { mode: { const: MODE_TABLE[mode].nodeYamlMode } }, required: ["mode"] }, then: fragments.reduce(merge) }];
}

/** The node.yaml JSON Schema (2020-12): the validator's fields, required fields per mode and text patterns, for editors. */
export function nodeYamlJsonSchema(): object {
  const { $schema, ...generated } = z.toJSONSchema(NodeYamlSchema, {
    target: "draft-2020-12",
    override: ({ zodSchema, jsonSchema }) => {
      // JSON Schema spells examples as a list; OpenAPI's `example` is what .meta() carries.
      if ("example" in jsonSchema) {
        jsonSchema.examples = [jsonSchema.example];
        delete jsonSchema.example;
      }
      const text = TEXT_KINDS.get(zodSchema);
      if (text) Object.assign(jsonSchema, TEXT_SCHEMAS[text.kind]);
    },
  }) as Fragment;
  const everyMode = [requiredAt(["mode"]), ...FOR_EVERY_MODE.map(({ path }) => requiredAt(snake(path))), login()].reduce(merge);
  return { $schema, $id: NODE_YAML_SCHEMA_ID, ...merge(generated, everyMode), allOf: MODES.flatMap(forMode) };
}
