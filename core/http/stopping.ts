/**
 * The comment line (`: installer stopping`) an installer's event stream ends with when the installer stops (a restart,
 * systemctl stop) before the attempt finished: the attempt goes on being the next start's to settle, and a reader
 * follows on once the installer answers again. A comment, which every SSE reader skips: no new kind of event. Its own
 * module, free of Node: the console's reader (console/api.ts) hears it too.
 */
export const STOPPING_COMMENT = "installer stopping";
