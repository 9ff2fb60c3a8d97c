export const YAML_LIMITS = {
  maxBytes: 1024 * 1024,
  maxAliasCount: 50,
  maxDepth: 32,
  /** A full node.yaml is a few thousand tokens; the yaml parser slows badly on pathological token streams. */
  maxTokens: 20_000,
} as const;
