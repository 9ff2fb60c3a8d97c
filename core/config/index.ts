export { draftMode, type ModeOption, modeOptions } from "./modes.ts";
export { nodeYamlJsonSchema } from "./json-schema.ts";
export { draftToNodeYaml, nodeYamlToDraft, renderNodeYaml } from "./node-yaml.ts";
export { nodeYamlWithStableDisks, withStableDisks } from "./stable-disks.ts";
export { type Draft, DraftSchema, type ValidationContext } from "./schema.ts";
export { analyzeYamlDraft, validateDraft, type YamlDraftAnalysis } from "./validate.ts";
export { MAX_CONFIG_DEPTH, parseYamlDocument, parseYamlSafely, replaceScalars } from "./yaml.ts";
