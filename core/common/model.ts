export const PHASES = ["configuring", "installing", "done", "failed"] as const;
export type Phase = (typeof PHASES)[number];

export const MODES = [
  "single-node",
  "hyperconverged-init",
  "hyperconverged-join",
  "disaggregated-control-plane",
] as const;
export type Mode = (typeof MODES)[number];

export const PROFILES = ["single-node", "hyperconverged", "disaggregated"] as const;
export type Profile = (typeof PROFILES)[number];

export const NODE_YAML_MODES = ["single-node", "ha-init", "join", "control-plane"] as const;
export type NodeYamlMode = (typeof NODE_YAML_MODES)[number];

/** The one table of SPEC §5: install mode ↔ node.yaml mode ↔ profile. */
export const MODE_TABLE: Record<Mode, { nodeYamlMode: NodeYamlMode; profile: Profile }> = {
  "single-node": { nodeYamlMode: "single-node", profile: "single-node" },
  "hyperconverged-init": { nodeYamlMode: "ha-init", profile: "hyperconverged" },
  "hyperconverged-join": { nodeYamlMode: "join", profile: "hyperconverged" },
  "disaggregated-control-plane": { nodeYamlMode: "control-plane", profile: "disaggregated" },
};

export const DEFAULT_MODE: Mode = "single-node";

export function modeFromNodeYaml(value: unknown): Mode | undefined {
  return MODES.find((m) => MODE_TABLE[m].nodeYamlMode === value);
}
