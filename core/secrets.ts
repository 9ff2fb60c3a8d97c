import { parseYamlSafely, nodeYamlToDraft } from "./config/index.ts";
import type { DraftRecord } from "./store.ts";

const cache = new WeakMap<DraftRecord, string[]>();

function secretsOf(config: unknown): string[] {
  const draft = config as { cluster?: { joinToken?: unknown }; admin?: { passwordHash?: unknown } } | null;
  return [draft?.cluster?.joinToken, draft?.admin?.passwordHash]
    .map((secret) => (typeof secret === "number" || typeof secret === "bigint" ? String(secret) : secret))
    .filter((s): s is string => typeof s === "string" && s.length > 0);
}

/** The draft's secret values (join token, password hash), valid draft or not, for redacting free text. */
export function draftSecrets(record: DraftRecord): string[] {
  let secrets = cache.get(record);
  if (!secrets) {
    if (record.source === "structured") secrets = secretsOf(record.config);
    else {
      const parsed = parseYamlSafely(record.yaml);
      secrets = parsed.ok ? secretsOf(nodeYamlToDraft(parsed.value)) : [];
    }
    cache.set(record, secrets);
  }
  return secrets;
}
