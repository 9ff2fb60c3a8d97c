import { isAlias, isScalar, type Document, type Range } from "yaml";
import { parseJoinToken } from "../cluster/join-token.ts";
import { nodeYamlToDraft, parseYamlDocument, renderNodeYaml, replaceScalars, type Draft } from "../config/index.ts";
import type { ClusterRecord, DraftRecord } from "../state/records.ts";
import { createRedactor, REDACTED, SECRET_NODE_YAML_FIELDS, spellings } from "./redact.ts";

const cache = new WeakMap<DraftRecord, string[]>();

function asText(value: unknown): string | undefined {
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

const SECRET_LINE = /^[\t -]*(?:join_token|password_hash)[\t ]*:[\t ]*(.*)$/gm;
/** node.yaml names each secret once; a half-edited one may repeat a key, but thousands would make every redaction slow. */
const MAX_LINE_SECRETS = 8;

/** A node.yaml that does not parse has no tree, yet a half-edited one still has its secrets on their key's line, maybe half quoted. */
function secretsOnLines(yaml: string): string[] {
  const secrets = new Set<string>();
  for (const [, value = ""] of yaml.matchAll(SECRET_LINE)) {
    const comment = value.search(/[\t ]#/); // not /[\t ]+#.*$/: that backtracks quadratically over a long run of blanks
    const secret = (comment < 0 ? value : value.slice(0, comment)).trim().replace(/^(["'])(.*?)\1?$/, "$2");
    if (secret.length > 0) secrets.add(secret);
    if (secrets.size === MAX_LINE_SECRETS) break;
  }
  return [...secrets];
}

/** Only the draft's secrets, valid draft or not. */
function secretsOf(config: unknown): Draft {
  const draft = config as { cluster?: { joinToken?: unknown }; admin?: { passwordHash?: unknown } } | null;
  return { cluster: { joinToken: asText(draft?.cluster?.joinToken) }, admin: { passwordHash: asText(draft?.admin?.passwordHash) } };
}

type SecretField = (typeof SECRET_NODE_YAML_FIELDS)[number];

/** The scalars holding the secrets in a parsed node.yaml (an alias's target where the key holds an alias). */
function secretScalars(doc: Document.Parsed): Array<{ range: Range; field: SecretField }> {
  return SECRET_NODE_YAML_FIELDS.flatMap((field) => {
    let node = doc.getIn(field.split("."), true);
    if (isAlias(node)) node = node.resolve(doc);
    return isScalar(node) && node.range ? [{ range: node.range, field }] : [];
  });
}

/**
 * The source text of each secret scalar in a node.yaml (quotes, escapes, block lines as written): what firstboot prints
 * back; a quoted one's also without its quotes (a script that strips them prints its escapes as written).
 */
function secretScalarTexts(doc: Document.Parsed, text: string): string[] {
  return secretScalars(doc).flatMap((node) => {
    const source = text.slice(node.range[0], node.range[1]);
    return /^(["']).*\1$/s.test(source) ? [source, source.slice(1, -1)] : [source];
  });
}

/**
 * A node.yaml to show a person: each secret's scalar replaced by "[redacted]", and each secret written again
 * elsewhere (a comment, a line of a node.yaml that does not parse) by [redacted]; every other byte as it was.
 */
export function redactedNodeYaml(yaml: string): string {
  return createRedactor(() => inNodeYaml(yaml).flatMap(spellings)).text(withSecretScalarsReplaced(yaml, () => REDACTED));
}

/** A node.yaml with each secret's scalar replaced by its marker (the support bundle names the secret); every other byte as it was. */
export function withSecretScalarsReplaced(yaml: string, marker: (field: SecretField) => string): string {
  const result = parseYamlDocument(yaml);
  return result.ok ? replaceScalars(yaml, secretScalars(result.parsed.doc).map(({ range, field }) => ({ range, value: marker(field) }))) : yaml;
}

/** The secrets' values in a node.yaml text, and the text of their scalars as it spells them. */
function inNodeYaml(yaml: string): string[] {
  const result = parseYamlDocument(yaml);
  if (!result.ok) return secretsOnLines(yaml);
  const { cluster, admin } = secretsOf(nodeYamlToDraft(result.parsed.value));
  const token = cluster?.joinToken === undefined ? undefined : parseJoinToken(cluster.joinToken);
  // A firstboot may print the token's secret alone: it is the part that must not show.
  const values = [cluster?.joinToken, token?.ok ? token.value.secret : undefined, admin?.passwordHash].filter((s): s is string => s !== undefined);
  return [...values, ...secretScalarTexts(result.parsed.doc, yaml)];
}

/**
 * Every spelling of the draft's secrets (join token, password hash) that output can hold, for redacting free
 * text. node.yaml is the draft's own text for a raw YAML draft; for a structured one the secrets are rendered
 * alone, by the installer's own renderer, so they are spelled as the node.yaml firstboot reads.
 */
export function draftSecrets(record: DraftRecord): string[] {
  let secrets = cache.get(record);
  if (!secrets) {
    secrets = record.source === "yaml" ? inNodeYaml(record.yaml).flatMap(spellings) : structuredSecrets(secretsOf(record.config));
    cache.set(record, secrets);
  }
  return secrets;
}

/** A draft without secrets (every fresh node's) renders none: no node.yaml round trip for the first log line. */
function structuredSecrets(secrets: Draft): string[] {
  if (secrets.cluster?.joinToken === undefined && secrets.admin?.passwordHash === undefined) return [];
  return inNodeYaml(renderNodeYaml(secrets)).flatMap(spellings);
}

const clusterCache = new WeakMap<ClusterRecord, string[]>();

/** The cluster secret an ha-init node generated, in every spelling output can hold. */
export function clusterSecrets(record: ClusterRecord | undefined): string[] {
  if (!record) return [];
  let secrets = clusterCache.get(record);
  if (!secrets) {
    secrets = spellings(record.secret);
    clusterCache.set(record, secrets);
  }
  return secrets;
}
