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

/**
 * A secret key where a half-edited node.yaml may hold one: in any case, its words joined by _, - or a blank or not
 * (join-token, Join Token), quoted or not, in a flow mapping, or on a line commented out (a person may have kept the
 * old token there).
 */
const SECRET_KEY = /(?:^|[\s{,#-])["']?(?:join[_ -]?token|password[_ -]?hash)["']?[\t ]*:(?=[\t ]|$)[\t ]*(.*)$/i;
/** node.yaml names each secret once; a half-edited one may repeat a key, but thousands would make every redaction slow. */
const MAX_LINE_SECRETS = 8;
/** Shorter values on a secret's line are no secret (a placeholder, a word of a comment): redacting them everywhere would blank the text. */
const MIN_LINE_SECRET = 8;

const indentOf = (line: string) => line.length - line.trimStart().length;

/** A value as written on a line: up to a comment, or in a flow mapping to its `,` or `}`; its quotes off. */
function lineValue(value: string, inFlow: boolean): string {
  const comment = value.search(/[\t ]#/); // not /[\t ]+#.*$/: that backtracks quadratically over a long run of blanks
  let text = comment < 0 ? value : value.slice(0, comment);
  if (inFlow) text = text.replace(/[,}].*$/, "");
  return text.trim().replace(/^(["'])(.*?)\1?$/, "$2");
}

/**
 * A node.yaml that does not parse has no tree, yet a half-edited one still has its secrets by their keys: on the key's
 * line, or, after an empty value or a block indicator (| or >), on the lines below it that are indented deeper.
 */
function secretsOnLines(yaml: string): string[] {
  const secrets = new Set<string>();
  const lines = yaml.split("\n");
  for (let i = 0; i < lines.length && secrets.size < MAX_LINE_SECRETS; i++) {
    const line = lines[i]!;
    const found = SECRET_KEY.exec(line);
    if (!found) continue;
    const inFlow = line.slice(0, found.index + 1).includes("{");
    const value = lineValue(found[1] ?? "", inFlow);
    const below: string[] = [];
    if (value === "" || /^[|>][+-]?\d*$/.test(value)) {
      for (let j = i + 1; j < lines.length && (lines[j]!.trim() === "" || indentOf(lines[j]!) > indentOf(line)); j++) {
        if (lines[j]!.trim() !== "") below.push(lineValue(lines[j]!, false));
      }
    }
    for (const secret of value === "" || below.length > 0 ? [...below, below.join(" "), below.join("")] : [value]) {
      if (secret.length >= MIN_LINE_SECRET) secrets.add(secret);
    }
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
  // The lines too: a key the schema does not know (JOIN_TOKEN:, a comment) may hold a secret all the same.
  return [...new Set([...values, ...secretScalarTexts(result.parsed.doc, yaml), ...secretsOnLines(yaml)])];
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
