import { parseYamlSafely, nodeYamlToDraft } from "./config/index.ts";
import type { DraftRecord } from "./store.ts";

const cache = new WeakMap<DraftRecord, string[]>();

function secretsOf(config: unknown): string[] {
  const draft = config as { cluster?: { joinToken?: unknown }; admin?: { passwordHash?: unknown } } | null;
  return [draft?.cluster?.joinToken, draft?.admin?.passwordHash]
    .map((secret) => (typeof secret === "number" || typeof secret === "bigint" ? String(secret) : secret))
    .filter((s): s is string => typeof s === "string" && s.length > 0);
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

/** The draft's secret values (join token, password hash), valid draft or not, for redacting free text. */
export function draftSecrets(record: DraftRecord): string[] {
  let secrets = cache.get(record);
  if (!secrets) {
    if (record.source === "structured") secrets = secretsOf(record.config);
    else {
      const parsed = parseYamlSafely(record.yaml);
      secrets = parsed.ok ? secretsOf(nodeYamlToDraft(parsed.value)) : secretsOnLines(record.yaml);
    }
    cache.set(record, secrets);
  }
  return secrets;
}
