/**
 * The environment variable every process of a firstboot carries (core/process/group.ts): its own name, not
 * STRATUM_FIRSTBOOT, which is the --firstboot flag's (an installer started from a firstboot reads that as the flag).
 */
export const FIRSTBOOT_MARK_VARIABLE = "STRATUM_FIRSTBOOT_MARK";
