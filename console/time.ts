/** Times as the node's logs say them (24-hour UTC), durations, and "now" by the installer's clock. */

/** The installer's clock minus this browser's, from the Date header of its answers: elapsed times and countdowns stay right on a machine whose clock is off. */
let skewMs = 0;

export function noteServerDate(res: Response): void {
  const date = Date.parse(res.headers.get("date") || "");
  if (date) skewMs = date - Date.now();
}

export function serverNow(): number {
  return Date.now() + skewMs;
}

/** 13:05:09, of an ISO time or epoch milliseconds */
export function utcTime(at: string | number): string {
  return new Date(at).toISOString().slice(11, 19);
}

/** 2026-12-03 13:05:09 UTC */
export function utcDateTime(iso: string): string {
  return new Date(iso).toISOString().slice(0, 19).replace("T", " ") + " UTC";
}

/** 42 s, 3 min 05 s, 1 h 02 min */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return s + " s";
  if (s < 3600) return Math.floor(s / 60) + " min " + String(s % 60).padStart(2, "0") + " s";
  return Math.floor(s / 3600) + " h " + String(Math.floor((s % 3600) / 60)).padStart(2, "0") + " min";
}
