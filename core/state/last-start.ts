/** last-start.json: what the last start of `serve` said and ran with, for the commands run beside it or after it. */
import { renameSync, rmSync } from "node:fs";
import { writeTempFileSync } from "../fs/write-private-file.ts";
import { readTextFile } from "../fs/read-text-file.ts";
import { stateLayout, tempPathOf } from "./layout.ts";
import type { LastStart } from "./records.ts";

/** Written before the banner shows (synchronously: a stop asked for the moment it shows must not lose it), in place by a rename. */
export function writeLastStart(stateDir: string, lastStart: LastStart): void {
  const path = stateLayout(stateDir).lastStart;
  const temp = tempPathOf(path);
  try {
    writeTempFileSync(temp, `${JSON.stringify(lastStart, null, 2)}\n`);
    renameSync(temp, path);
  } catch (err) {
    // As the store's writes: a temp file a full disk took part of would hold the space the store and the events need.
    rmSync(temp, { force: true });
    throw err;
  }
}

/** What the last start ran with; a missing, unreadable or odd file, or field, is no answer (the caller's defaults hold). */
export async function lastStartRanWith(stateDir: string): Promise<Pick<LastStart, "payload" | "hostFacts" | "tlsKey" | "listenHost" | "port">> {
  let parsed: unknown;
  try {
    // Not waited on nor read without end when it is no file (a named pipe, a link to /dev/zero): support-bundle reads it.
    parsed = JSON.parse(await readTextFile(stateLayout(stateDir).lastStart, 1024 * 1024, { lenient: true }));
  } catch {
    return {};
  }
  if (typeof parsed !== "object" || parsed === null) return {};
  const { payload, hostFacts, tlsKey, listenHost, port } = parsed as Record<string, unknown>;
  const usable = (value: unknown) => typeof value === "string" && value.length > 0 && value.length <= 4096;
  return {
    ...(usable(payload) ? { payload: payload as string } : {}),
    ...(usable(hostFacts) ? { hostFacts: hostFacts as string } : {}),
    ...(usable(tlsKey) ? { tlsKey: tlsKey as string } : {}),
    // An address or a host name as --listen takes them (an IPv6 one without its brackets), nothing else.
    ...(usable(listenHost) && /^(?:[0-9A-Za-z.-]+|[0-9A-Fa-f:.]+)$/.test(listenHost as string) ? { listenHost: listenHost as string } : {}),
    ...(Number.isInteger(port) && (port as number) >= 1 && (port as number) <= 65535 ? { port: port as number } : {}),
  };
}
