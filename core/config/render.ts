import { stringify } from "yaml";
import { draftToNodeYaml } from "./mapping.ts";
import type { Draft } from "./schema.ts";

/** The node.yaml an install writes. */
export function renderNodeYaml(draft: Draft): string {
  // Every value double-quoted: no YAML reader (1.1 or 1.2) can take "yes", "0o17" or "2026-11-01" for anything but a
  // string. lineWidth 0 keeps each SSH key on one line.
  const body = stringify(draftToNodeYaml(draft), { defaultStringType: "QUOTE_DOUBLE", defaultKeyType: "PLAIN", lineWidth: 0 });
  return `# node.yaml written by the Stratum installer\n${body}`;
}
