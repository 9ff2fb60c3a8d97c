/** What `serve` runs with: SPEC §2's flags, resolved. */
export interface Settings {
  listenHost: string;
  listenPort: number;
  stateDir: string;
  payload: string;
  handoff: string;
  installRecord: string;
  nodeYaml: string;
  firstboot: string;
  readinessUrl: string;
  readinessTimeoutSeconds: number;
  readinessIntervalSeconds: number;
  hostFacts?: string;
  tlsCert?: string;
  tlsKey?: string;
  /** Where the listen address came from, for the words of a listen that fails: STRATUM_LISTEN (installer.env, `npm start`) or the flag (default). */
  listenFrom?: "flag" | "environment";
}
