import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { readInstallCode } from "../core/access/install-code-file.ts";
import { stateLayout } from "../core/state/layout.ts";
import { certificateFingerprint } from "../core/access/tls.ts";
import type { InstallEvent } from "../core/attempts/events.ts";
import type { Verdict } from "../core/state/records.ts";
import type { Status } from "../core/service/status.ts";
import type { Exit } from "./commands.ts";
import { Unavailable, get, getJson, sseMessages, type Pinned } from "./pinned.ts";

interface StatusOptions {
  stateDir: string;
  url: URL;
  /** The certificate an installer started with --tls-cert serves; default the state dir's. */
  tlsCert: string | undefined;
  follow: boolean;
}

const POLL_MS = 1_000;
/** Three missed heartbeats (15 s apart): the connection is gone even if no error says so. */
const IDLE_MS = 45_000;
/** How long a follow waits for a restarted installer to answer again. */
const LOST_AFTER = 30;

/** An answer that trying again does not change. */
class Refused extends Unavailable {}

const out = (line: string) => process.stdout.write(`${line}\n`);

/** `status [--follow]`: 0 done or under way, 1 failed, 2 the installer cannot be asked. */
export async function runStatus(options: StatusOptions): Promise<Exit> {
  try {
    const target = await pinnedTarget(options);
    return options.follow ? await follow(target) : await show(target);
  } catch (err) {
    if (!(err instanceof Unavailable)) throw err;
    process.stderr.write(`status: ${err.message}\n`);
    return 2;
  }
}

async function pinnedTarget({ stateDir, url, tlsCert }: StatusOptions): Promise<Pinned> {
  const code = await readInstallCode(stateDir).catch((err: Error) => {
    throw new Unavailable(`cannot read the install code in ${stateDir}: ${err.message}`);
  });
  if (!code) throw new Unavailable(`no install code in ${stateDir}: is it the installer's state dir (--state-dir)?`);
  const certFile = tlsCert ?? stateLayout(stateDir).tlsCert;
  const cert = await readFile(certFile, "utf8").catch((err: Error) => {
    throw new Unavailable(`cannot read the certificate to pin, ${certFile}: ${err.message}${tlsCert ? "" : " (an installer started with --tls-cert: pass the same --tls-cert)"}`);
  });
  return { url, code, sha256: certificateFingerprint(cert).replaceAll(":", "").toLowerCase() };
}

const fetchStatus = async (target: Pinned) => (await getJson<Status>(target, "/v1/installer/status")).body;

async function show(target: Pinned): Promise<Exit> {
  const status = await fetchStatus(target);
  const verdict = status.phase === "done" || status.phase === "failed" ? (await getJson<Verdict>(target, "/v1/installer/install/verdict")).body : undefined;
  for (const line of describeStatus(status, verdict)) out(line);
  return status.phase === "failed" ? 1 : 0;
}

/** The status, then the running attempt's events (waiting for one to start while the phase is configuring) until it finishes. */
async function follow(target: Pinned): Promise<Exit> {
  let status = await fetchStatus(target);
  if (status.phase === "done" || status.phase === "failed") return show(target);
  for (const line of describeStatus(status)) out(line);
  if (status.phase === "configuring") {
    out("waiting for an install attempt to start (Ctrl-C to stop)");
    const before = status.attempt;
    while (status.attempt === before) {
      await sleep(POLL_MS);
      status = await fetchStatus(target);
    }
  }
  return followAttempt(target, status.attempt);
}

async function followAttempt(target: Pinned, attempt: number): Promise<Exit> {
  let after = 0;
  let why = "";
  for (let lost = 0; lost < LOST_AFTER; lost++) {
    try {
      const res = await get(target, `/v1/installer/install/events?attempt=${attempt}&after=${after}`, "text/event-stream");
      if (res.statusCode !== 200) throw new Refused(`the events of attempt ${attempt} answered HTTP ${res.statusCode}`);
      res.socket.setTimeout(IDLE_MS, () => res.destroy(new Error(`no heartbeat for ${IDLE_MS / 1000} s`)));
      for await (const message of sseMessages(res)) {
        const event = JSON.parse(message.data) as InstallEvent;
        after = event.seq;
        lost = 0;
        out(eventLine(event));
        if (event.type === "attempt.finished") {
          const verdict = event.data!.verdict as Verdict;
          out(verdictLine(verdict));
          return verdict.outcome === "succeeded" ? 0 : 1;
        }
      }
      why = "the event stream ended before the attempt finished";
    } catch (err) {
      if (err instanceof Refused) throw err;
      why = (err as Error).message;
    }
    // The installer restarted (or the link dropped): it answers again in a moment, and the stream resumes after the last event.
    await sleep(POLL_MS);
  }
  throw new Unavailable(`lost the installer while following attempt ${attempt}: ${why}`);
}

const clock = (iso: string) => `${iso.slice(11, 19)}Z`;

function eventLine(event: InstallEvent): string {
  return `${clock(event.time)} ${(event.step ?? "attempt").padEnd(12)} ${event.level === "info" ? "" : `${event.level}: `}${event.message}`;
}

function verdictLine(verdict: Verdict): string {
  if (verdict.outcome === "succeeded") return `attempt ${verdict.attempt} succeeded`;
  return `attempt ${verdict.attempt} failed${verdict.step ? ` at ${verdict.step}` : ""}: ${verdict.code}; next: ${verdict.next}`;
}

function phaseLine(status: Status): string {
  const n = status.attempt;
  switch (status.phase) {
    case "configuring":
      return "configuring: no install attempt yet";
    case "installing":
      return `installing: attempt ${n}, step ${status.step ?? "starting"}, started ${status.startedAt}`;
    case "done":
      return `done: attempt ${n} finished ${status.finishedAt}`;
    case "failed":
      return `failed: attempt ${n} finished ${status.finishedAt}`;
  }
}

function describeStatus(status: Status, verdict?: Verdict): string[] {
  const field = (name: string, value: string) => `${name.padEnd(10)} ${value}`;
  return [
    field("phase", phaseLine(status)),
    ...(verdict ? [field("verdict", verdictLine(verdict)), field("", verdict.message)] : []),
    field("node", `${status.hostname}, ${status.mode ?? "mode not set"}, config ${status.configValid ? "valid" : "not valid yet"}`),
    field("installer", `${status.url} (${status.version})`),
    ...(status.blockers ?? []).map((b) => field("blocker", `${b.code}: ${b.detail}`)),
    ...(status.unattended ? [field("unattended", `${status.unattended.state}${status.unattended.attempt ? ` (attempt ${status.unattended.attempt})` : ""}`)] : []),
  ];
}
