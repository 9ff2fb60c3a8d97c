declare const __STRATUM_VERSION__: string | undefined;
export const VERSION = typeof __STRATUM_VERSION__ === "string" ? __STRATUM_VERSION__ : "0.0.0-dev";
