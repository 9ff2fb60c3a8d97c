/**
 * The secrets' one module: which draft fields are secret, and redaction of drafts and of free text.
 * core/config imports ./redact.ts itself: draft-secrets.ts reads node.yaml through core/config.
 */
export { clusterSecrets, draftSecrets, redactedNodeYaml, withSecretScalarsReplaced } from "./draft-secrets.ts";
export { createRedactor, keySpellings, PEM_PRIVATE_KEY, privateKeyLines, redactDraft, REDACTED, SECRET_FIELDS, spellings, type KeyLines, type Redactor } from "./redact.ts";
