import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import type { z } from "zod";
import { noInstallCode, readInstallCode } from "../core/access/install-code-file.ts";
import { stateLayout } from "../core/state/layout.ts";
import { certificateFingerprint } from "../core/access/tls.ts";
import { HttpClientError, type Parser, requestJson, wrongAnswer } from "../core/http/client.ts";
import { readEvents } from "../core/http/sse.ts";
import { StatusSchema } from "../handlers/get-status.ts";
import { EventSchema, VerdictSchema } from "../handlers/schemas/install.ts";
import type { Exit } from "./commands.ts";
import { printable } from "../core/common/printable.ts";
import { capText } from "../core/common/cut-text.ts";
import { stateDirNotReadable } from "../core/fs/storage-error.ts";

type Status = z.infer<typeof StatusSchema>;
type Verdict = z.infer<typeof VerdictSchema>;
type InstallEvent = z.infer<typeof EventSchema>;

/** The local installer as its state dir names it: where it listens, its install code, its certificate's SHA-256 (hex). */
interface Pinned {
  url: URL;
  code: string;
  /** The file the code was read from. */
  codeFile: string;
  sha256: string;
  /** The certificate is the state dir's own (self-signed, made there): no other installer serves it. */
  ownCertificate: boolean;
}

/** The installer cannot be asked: no code or certificate in the state dir, not listening, another certificate, or the code refused. */
class Unavailable extends Error {}

interface StatusOptions {
  stateDir: string;
  url: URL;
  /** The certificate an installer started with --tls-cert serves; default the state dir's. */
  tlsCert: string | undefined;
  follow: boolean;
  /**
   * Where the installer is now, by its state dir's last start (when neither --url nor --port said where): one restarted
   * on another port (its --listen's port 0, a changed STRATUM_LISTEN) is followed there.
   */
  relocate?: () => Promise<URL>;
}

const POLL_MS = 1_000;
const TIMEOUT_MS = 15_000;
const MAX_ANSWER = 1024 * 1024;
/** Three missed heartbeats (15 s apart): the connection is gone even if no error says so. */
const IDLE_MS = 45_000;
/** How long a follow tries again to reach an installer it lost (a restart answers well within it). */
const LOST_MS = 30_000;

/** An answer that trying again does not change. */
class Refused extends Unavailable {}

// What the installer answers is a node's text: shown, never obeyed by the terminal.
const out = (line: string) => process.stdout.write(`${printable(line)}\n`);

/** `status [--follow]`: 0 done or under way, 1 failed, 2 the installer cannot be asked. */
export async function runStatus(options: StatusOptions): Promise<Exit> {
  try {
    const target = await pinnedTarget(options);
    return options.follow ? await follow(target, options) : await show(target);
  } catch (err) {
    if (!(err instanceof Unavailable)) throw err;
    process.stderr.write(`status: ${printable(err.message)}\n`);
    return 2;
  }
}

async function pinnedTarget({ stateDir, url, tlsCert }: StatusOptions): Promise<Pinned> {
  const code = await readInstallCode(stateDir).catch((err: Error) => {
    throw new Unavailable(stateDirNotReadable(stateDir, err) ?? `cannot read the install code in ${stateDir}: ${err.message}`);
  });
  if (!code) throw new Unavailable(noInstallCode(stateDir, code));
  const certFile = tlsCert ?? stateLayout(stateDir).tlsCert;
  const cert = await readFile(certFile, "utf8").catch((err: Error) => {
    throw new Unavailable(`cannot read the certificate to pin, ${certFile}: ${err.message}${tlsCert ? "" : " (an installer started with --tls-cert: pass the same --tls-cert)"}`);
  });
  return { url, code, codeFile: stateLayout(stateDir).installCode, sha256: certificateFingerprint(cert).replaceAll(":", "").toLowerCase(), ownCertificate: tlsCert === undefined };
}

function problemDetail(body: string): string | undefined {
  try {
    return (JSON.parse(body) as { detail?: string } | null)?.detail;
  } catch {
    return undefined;
  }
}

/** The client's error in this command's words; `path` is what was asked. */
function inStatusWords(error: unknown, target: Pinned, path: string): unknown {
  if (!(error instanceof HttpClientError)) return error;
  const origin = target.url.origin;
  const status = error.answer?.status;
  // An event of a stream: in its own words (the stream's status is not what is wrong with it).
  if ((error.kind === "not-json" || error.kind === "schema") && !error.answer) return new Unavailable(`${origin}${path}: ${error.message}: is it the installer?`);
  switch (error.kind) {
    case "unreachable":
      // Refused: the address is this machine's or answers, but nothing listens on the port: the service is down.
      return new Unavailable(`cannot reach the installer at ${origin}: ${error.message}${/\bECONNREFUSED\b/.test(error.message) ? "; nothing listens there: is the installer running? (systemctl status stratum-installer)" : ""}`);
    case "tls-mismatch":
      return new Unavailable(`${origin} presents another certificate (SHA-256 ${error.presented ?? "none"}) than the state dir's: it is not the installer of that state dir, so the install code was not sent`);
    case "not-json":
      return new Unavailable(`${origin}${path} answered HTTP ${status} without JSON: is it the installer?`);
    case "schema":
      return new Unavailable(`${origin}${path} answered ${error.message}: is it the installer?`);
    case "malformed":
      return new Unavailable(`${origin}${path} answered with ${error.message}: is it the installer?`);
    case "too-large":
      // It answered, too much: "did not answer" would send the operator looking for a stopped service.
      return new Unavailable(`${origin}${path} answered more than an installer does (${error.message}): is it the installer?`);
    case "status": {
      const detail = problemDetail(error.answer!.body);
      if (status === 401) {
        // Not the server's "run `installer code`": that prints this same file.
        const whose = target.ownCertificate
          ? "Its certificate is the state dir's, so it is that state dir's installer, and the file was changed since it started"
          : "Is it the installer of that state dir (--tls-cert's certificate may be served by others)? If it is, the file was changed since it started";
        return new Unavailable(`the installer at ${origin} refused the install code in ${target.codeFile} (HTTP 401): it runs with another one. ${whose}: the code it runs with is in its banner (journalctl -u stratum-installer)`);
      }
      if (status === 429) {
        // Not the server's "run `installer code`" either. Locked out, the address is refused even with the right code.
        const seconds = /^\d{1,6}$/.exec(String(error.answer!.headers["retry-after"] ?? "").trim())?.[0];
        return new Unavailable(
          `the installer at ${origin} refuses tries from this address for a while (HTTP 429${seconds ? `, for ${seconds} s more by its Retry-After` : ""}) because of wrong install codes sent to it; meanwhile it refuses even the right one. ` +
            `If \`status\` sent them, the code in ${target.codeFile} is not the one the running installer has (the file was changed since it started): that one is in its banner (journalctl -u stratum-installer)`,
        );
      }
      return new Unavailable(`${origin}${path} answered HTTP ${status}${detail ? `: ${detail}` : ""}`);
    }
    case "broken":
      // Mid-answer: "did not answer: aborted" would say it never did.
      return new Unavailable(`the connection to the installer at ${origin} broke: ${error.message}`);
    default:
      return new Unavailable(`the installer at ${origin} did not answer: ${error.message}`);
  }
}

/** One GET over a connection whose certificate was checked before the install code was sent; its failure the client's. */
async function getJsonAsIs<T>(target: Pinned, path: string, schema: Parser<T>): Promise<T> {
  const headers = { authorization: `Bearer ${target.code}`, accept: "application/json" };
  return (await requestJson({ url: new URL(path, target.url), trust: { pin: target.sha256 }, headers, timeoutMs: TIMEOUT_MS, maxBytes: MAX_ANSWER }, 200, schema)).body;
}

/** One GET, its failure in this command's words. */
async function getJson<T>(target: Pinned, path: string, schema: Parser<T>): Promise<T> {
  try {
    return await getJsonAsIs(target, path, schema);
  } catch (error) {
    throw inStatusWords(error, target, path);
  }
}

const STATUS_PATH = "/v1/installer/status";
const fetchStatus = (target: Pinned) => getJson(target, STATUS_PATH, StatusSchema);

async function show(target: Pinned): Promise<Exit> {
  const status = await fetchStatus(target);
  const verdict = status.phase === "done" || status.phase === "failed" ? await getJson(target, "/v1/installer/install/verdict", VerdictSchema) : undefined;
  for (const line of describeStatus(status, verdict)) out(line);
  return status.phase === "failed" ? 1 : 0;
}

/** The status, then the running attempt's events (waiting for one to start while the phase is configuring) until it finishes. */
async function follow(target: Pinned, options: StatusOptions): Promise<Exit> {
  let status = await fetchStatus(target);
  if (status.phase === "done" || status.phase === "failed") return show(target);
  for (const line of describeStatus(status)) out(line);
  const hold = new Lifeline(target, options);
  if (status.phase === "configuring") {
    out("waiting for an install attempt to start (Ctrl-C to stop)");
    const before = status.attempt;
    const doing = "waiting for an install attempt to start";
    while (status.attempt === before) {
      await sleep(POLL_MS);
      try {
        status = await getJsonAsIs(hold.target, STATUS_PATH, StatusSchema);
        hold.answered(doing);
      } catch (err) {
        if (err instanceof HttpClientError && err.kind === "status" && err.answer!.status === 401) await hold.renewedCode(err, STATUS_PATH);
        // Another refusal or an odd answer: asking again changes nothing.
        else if (!(err instanceof HttpClientError) || err.kind === "status" || wrongAnswer(err)) throw inStatusWords(err, hold.target, STATUS_PATH);
        else await hold.lost(err, doing, STATUS_PATH);
      }
    }
  }
  return followAttempt(hold, status.attempt);
}

const say = (line: string) => process.stderr.write(`status: ${printable(line)}\n`);

/** A verdict's message is the installer's text: as much of it as a person reads in one line of a terminal's scrollback. */
const VERDICT_MESSAGE_BYTES = 2048;

/** What the operator does about a verdict's `next` from a shell: the console, or the request the console sends. */
const HOW_TO_GO_ON: Partial<Record<Verdict["next"], string>> = {
  retryInstall: "start the install again (the console, or POST /v1/installer/install)",
  recheckReadiness: "recheck readiness (the console, or POST /v1/installer/install/recheck-readiness)",
};

/**
 * A follow's hold on the installer, which may restart under it (systemctl restart, a crash, a reboot): losing it is
 * said at once and tried again for LOST_MS; its return is said. A restart with a new certificate is followed on only
 * when the state dir (or --tls-cert) now holds that certificate, and said; any other is refused as at the start.
 */
class Lifeline {
  /** When the installer was lost (the first failure since it last answered); undefined while it answers. */
  #lostAt: number | undefined;

  constructor(
    public target: Pinned,
    private readonly options: StatusOptions,
  ) {}

  /** It answered: said when it had been lost. */
  answered(doing: string): void {
    if (this.#lostAt === undefined) return;
    this.#lostAt = undefined;
    say(`the installer answers again: ${doing} on`);
  }

  /** `err` failed to reach it (undefined: `why` says what went wrong): returns when it is worth asking again, throws once it is gone. */
  async lost(err: unknown, doing: string, path: string, why = ""): Promise<void> {
    if (err instanceof HttpClientError && err.kind === "tls-mismatch") {
      this.target = await this.#repinned(err.presented);
      return;
    }
    if (err !== undefined) {
      const mapped = inStatusWords(err, this.target, path);
      if (!(mapped instanceof Unavailable)) throw mapped;
      why = mapped.message;
    }
    const moved = err instanceof HttpClientError && err.kind === "unreachable" ? await this.options.relocate?.().catch(() => undefined) : undefined;
    if (moved && moved.origin !== this.target.url.origin) {
      say(`the installer's last start listens at ${moved.origin}, not ${this.target.url.origin}: following it there`);
      this.target = { ...this.target, url: moved };
      return;
    }
    if (this.#lostAt === undefined) {
      this.#lostAt = performance.now();
      say(`lost the installer at ${this.target.url.origin} while ${doing} (${why}): trying again for ${LOST_MS / 1000} s (Ctrl-C to stop)`);
    } else if (performance.now() - this.#lostAt > LOST_MS) {
      throw new Unavailable(`lost the installer while ${doing}: ${why}. Once it runs again (systemctl status stratum-installer), \`status --follow\` goes on from where it stands`);
    }
    await sleep(POLL_MS);
  }

  /**
   * The installer refused the code (HTTP 401, `err`): one restarted with a new code (its install-code emptied, a new
   * one made at its start) is followed on with the state dir's new code, said; else the refusal stands.
   */
  async renewedCode(err: HttpClientError, path: string): Promise<void> {
    const now = await pinnedTarget(this.options);
    if (now.code === this.target.code || now.sha256 !== this.target.sha256) throw inStatusWords(err, this.target, path);
    say(`the installer at ${this.target.url.origin} runs with a new install code, the one its state dir now holds: following on with that one`);
    this.target = now;
  }

  async #repinned(presented: string | undefined): Promise<Pinned> {
    const now = await pinnedTarget(this.options);
    if (now.sha256 === this.target.sha256 || now.sha256 !== presented) {
      throw inStatusWords(new HttpClientError("tls-mismatch", this.target.url.origin, "", { presented }), this.target, "");
    }
    say(`the installer at ${this.target.url.origin} restarted with a new certificate, SHA-256 ${now.sha256}, the one ${this.options.tlsCert ? `--tls-cert ${this.options.tlsCert}` : "its state dir"} now holds: following on with that one`);
    return now;
  }
}

async function followAttempt(hold: Lifeline, attempt: number): Promise<Exit> {
  const path = `/v1/installer/install/events?attempt=${attempt}`;
  const doing = `following attempt ${attempt}`;
  let lastEventId: string | undefined;
  let lastSeq = 0;
  for (;;) {
    let failure: unknown;
    let stopping = false;
    try {
      const events = readEvents({
        url: new URL(path, hold.target.url),
        trust: { pin: hold.target.sha256 },
        headers: { authorization: `Bearer ${hold.target.code}` },
        timeoutMs: TIMEOUT_MS,
        idleMs: IDLE_MS,
        lastEventId,
        schema: EventSchema,
        isFinal: (event) => event.type === "attempt.finished",
        onStopping: () => (stopping = true),
      });
      for await (const { id, event } of events) {
        // An attempt's events come once each, in order: a stream that replays or mixes attempts would be followed forever.
        if (event.attempt !== attempt || event.seq <= lastSeq) {
          throw new Refused(`the event stream of attempt ${attempt} sent event ${event.seq} of attempt ${event.attempt} after event ${lastSeq}: is it the installer?`);
        }
        lastSeq = event.seq;
        lastEventId = id;
        hold.answered(doing);
        out(eventLine(event));
        if (event.type === "attempt.finished") {
          const verdict = VerdictSchema.safeParse(event.data?.verdict);
          if (!verdict.success) throw new Refused(`the attempt.finished event of attempt ${attempt} carries no verdict: is it the installer?`);
          out(verdictLine(verdict.data));
          // Someone may have started the install again (a retry, a recheck) while this follow was away or not reading:
          // the node installs on, and that attempt is the one to follow. (A succeeded install takes no new attempt.)
          const now = verdict.data.outcome === "failed" ? await getJsonAsIs(hold.target, STATUS_PATH, StatusSchema).catch(() => undefined) : undefined;
          const newer = now && now.attempt > attempt ? now.attempt : undefined;
          // Only a start of the installer fails an attempt INTERRUPTED: the installer that ran it stopped (killed, restarted or rebooted).
          if (verdict.data.code === "INTERRUPTED") {
            const restarted = `the installer restarted while attempt ${attempt} ran, which it marked INTERRUPTED`;
            if (newer) {
              say(`${restarted}; attempt ${newer} was started since: following attempt ${newer}`);
              return followAttempt(hold, newer);
            }
            // Killed during firstboot, which erases disks: what it did is unknown (it may even have finished), and a new
            // attempt runs it again. The verdict's own words say which, and the node is checked first.
            if (verdict.data.step === "firstboot") {
              say(`${restarted}: ${capText(verdict.data.message, VERDICT_MESSAGE_BYTES).text} firstboot had begun: check on the node what it did before you ${HOW_TO_GO_ON.retryInstall}, which runs firstboot again.`);
            } else {
              const how = HOW_TO_GO_ON[verdict.data.next];
              say(`${restarted}.${how ? ` To go on, ${how}.` : ""}`);
            }
          } else if (newer) {
            say(`attempt ${newer} was started after attempt ${attempt} ended: following attempt ${newer}`);
            return followAttempt(hold, newer);
          }
          return verdict.data.outcome === "succeeded" ? 0 : 1;
        }
      }
    } catch (err) {
      if (err instanceof Refused) throw err;
      // No installer answers so (malformed HTTP, over a cap, an event of another shape), restarting or not: asking again would only hear it again.
      if (wrongAnswer(err)) throw inStatusWords(err, hold.target, path);
      if (err instanceof HttpClientError && err.kind === "status") {
        if (err.answer!.status === 404) {
          // The attempt it ran is gone from its store: the state dir was replaced (or cleared) under a restart.
          const now = await fetchStatus(hold.target);
          throw new Refused(`the installer at ${hold.target.url.origin} no longer has attempt ${attempt}: its state dir was replaced or cleared since the attempt started. It says now: ${phaseLine(now)}`);
        }
        if (err.answer!.status === 429) throw inStatusWords(err, hold.target, path);
        if (err.answer!.status !== 401) throw new Refused(`the events of attempt ${attempt} answered HTTP ${err.answer!.status}`);
        await hold.renewedCode(err, path);
        continue;
      }
      failure = err;
    }
    // The installer restarted (or the link dropped): it answers again in a moment, and the stream resumes after the last event.
    await hold.lost(failure, doing, path, stopping ? "it said it stops: a restart, or a stop" : "the event stream ended before the attempt finished");
  }
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
      return `installing: attempt ${n}, step ${status.step ?? "starting"}, started ${status.startedAt ?? "(no time given)"}`;
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
