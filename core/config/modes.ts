import type { HostFacts } from "../host/facts.ts";
import { DEFAULT_MODE, MODE_TABLE, MODES, type Mode, type NodeYamlMode, type Profile } from "../common/model.ts";
import type { ReleaseModel } from "../payload/release-model.ts";
import { unusedDisks } from "./messages.ts";
import { isPlainObject } from "./paths.ts";
import type { ValidationContext } from "./schema.ts";

export interface ModeOption {
  mode: Mode;
  profile: Profile;
  nodeYamlMode: NodeYamlMode;
  available: boolean;
  reason?: string;
  preview: boolean;
}

const HOST_NEEDS: Partial<Record<Profile, (host: HostFacts) => string | undefined>> = {
  hyperconverged: (host) =>
    unusedDisks(host).length > 0 ? undefined : "hyperconverged needs at least one unused disk for Ceph; this host has none",
};

function releaseName(release: ReleaseModel): string {
  return release.release === null ? "the built-in release model" : `release ${release.release}`;
}

function unavailableReason(profile: Profile, { host, release }: ValidationContext): string | undefined {
  const shipped = release.profiles[profile];
  if (!shipped) return `${releaseName(release)} does not ship the ${profile} profile`;
  if (!shipped.enabled) {
    return shipped.preview
      ? `the ${profile} profile is a preview that this release leaves disabled`
      : `${releaseName(release)} ships the ${profile} profile disabled`;
  }
  return HOST_NEEDS[profile]?.(host);
}

export function modeOptions(ctx: ValidationContext): ModeOption[] {
  return MODES.map((mode) => {
    const { profile, nodeYamlMode } = MODE_TABLE[mode];
    const reason = unavailableReason(profile, ctx);
    const preview = ctx.release.profiles[profile]?.preview ?? false;
    return reason === undefined
      ? { mode, profile, nodeYamlMode, available: true, preview }
      : { mode, profile, nodeYamlMode, available: false, reason, preview };
  });
}

/** A structured draft's install mode: its mode when a known one, the default when it has none, undefined when unknown. */
export function draftMode(draft: unknown): Mode | undefined {
  const mode = isPlainObject(draft) ? draft.mode : undefined;
  // null is none too (what a merge patch uses to take a field away): seed 000's "single-node for a structured draft with none".
  if (mode === undefined || mode === null) return DEFAULT_MODE;
  return MODES.find((m) => m === mode);
}
