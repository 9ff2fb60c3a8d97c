import type { Profile } from "../common/model.ts";

interface ProfileRelease {
  enabled: boolean;
  preview?: boolean;
}

/** The release model the installer offers modes from (SPEC §7). A profile absent from `profiles` is not shipped. */
export interface ReleaseModel {
  release: string | null;
  profiles: Partial<Record<Profile, ProfileRelease>>;
}

/** Used until an offline payload is loaded. */
export const BUILT_IN_RELEASE: ReleaseModel = {
  release: null,
  profiles: {
    "single-node": { enabled: true },
    hyperconverged: { enabled: true },
    disaggregated: { enabled: false, preview: true },
  },
};
