import { setTimeout as sleep } from "node:timers/promises";
import { ApiProblem, type InstallEvent, type NodeApi, type Verdict, worthAskingAgain, wrongAnswer } from "./api.ts";
import { HttpClientError } from "../../core/http/client.ts";
import { VerdictSchema } from "../../handlers/schemas/install.ts";

interface Watcher {
  onEvent(event: InstallEvent): void;
  /** The stream broke; it is resumed after the last event received. */
  onBreak(reason: string, lastSeq: number): void;
  /** No event for `quietMs` (and again each `quietMs` after): the node may be stuck, or its step long. */
  onQuiet?(sinceMs: number, lastSeq: number): void;
  signal: AbortSignal;
  /** How long a node may stay out of reach (not answering at all) before the fleet gives up following it. */
  giveUpMs?: number;
  quietMs?: number;
  /** The first pause before the stream is asked again; it doubles up to 16 times this. */
  pauseMs?: number;
}

export const GIVE_UP_AFTER_MS = 120_000;
const QUIET_MS = 5 * 60_000;

/**
 * The success the attempt's last event carries: the verdict, without asking for it. A failure is asked for, once the
 * node has settled the attempt, since a recheck may follow it at once.
 */
function carriedSuccess(event: InstallEvent, attempt: number): Verdict | undefined {
  if (event.type !== "attempt.finished") return undefined;
  const carried = VerdictSchema.safeParse(event.data?.verdict);
  return carried.success && carried.data.attempt === attempt && carried.data.outcome === "succeeded" ? carried.data : undefined;
}

/**
 * Follows one attempt to its verdict over SSE, from event `after` on: a stream that breaks (or ends
 * before the attempt did) is resumed with Last-Event-ID, so each event is seen once. An answer no installer
 * gives (a wrong shape, over a cap) ends the following at once: asking again would only hear it again.
 */
export async function followAttempt(api: Pick<NodeApi, "events" | "verdict" | "where">, attempt: number, after: number, watcher: Watcher): Promise<Verdict> {
  const giveUpMs = watcher.giveUpMs ?? GIVE_UP_AFTER_MS;
  const quietMs = watcher.quietMs ?? QUIET_MS;
  let last = after;
  let outOfReachSince: number | undefined;
  let tries = 0;
  // A break for the reason said last is said again at the 2nd, 4th, 8th… try: a stream that keeps failing while the
  // node answers (a 404 for an attempt it says runs) is not a warning every few seconds for the whole readiness wait.
  let said: string | undefined;
  let sameSaid = 0;
  // A stream of heartbeats alone, or a node that says it still installs and sends nothing: said every quietMs.
  let heardAt = Date.now();
  let quietSaid = heardAt;
  // The verdict a quiet node gives when asked: an attempt that ended while its stream only beats (its
  // attempt.finished lost, or never sent) ends the following, instead of a wait for ever.
  let ended: Verdict | undefined;
  // The attempt's attempt.finished, once it came: the attempt is settled on the node, whose verdict then never says it runs.
  let finishedAt: number | undefined;
  const stop = new AbortController();
  const signal = AbortSignal.any([watcher.signal, stop.signal]);
  const quiet = setInterval(() => {
    const now = Date.now();
    if (now - quietSaid < quietMs) return;
    quietSaid = now;
    watcher.onQuiet?.(now - heardAt, last);
    void api.verdict(attempt).then(
      (verdict) => {
        if (verdict?.attempt !== attempt || stop.signal.aborted) return;
        ended = verdict;
        stop.abort();
      },
      () => undefined,
    );
  }, Math.min(quietMs, 60_000)).unref();
  try {
    return await follow();
  } finally {
    clearInterval(quiet);
  }

  async function follow(): Promise<Verdict> {
    for (;;) {
      let reason: string | undefined;
      try {
        for await (const event of api.events(attempt, last, signal)) {
          // An installer's events go up, one attempt a stream: one that replays or mixes attempts would be shown, and
          // followed, forever.
          if (event.attempt !== attempt || event.seq <= last) {
            const got = `event ${event.seq} of attempt ${event.attempt}`;
            // Not followed further, but not ended either: the node may well be installing.
            throw new HttpClientError("schema", api.where, `${api.where} gave an answer that is not its installer's: ${got} after event ${last} of attempt ${attempt} (an attempt's events come once each, in order); attempt ${attempt} may well run on there: \`status\` on the node shows it, and the fleet run again follows it`);
          }
          last = event.seq;
          outOfReachSince = undefined;
          tries = 0;
          said = undefined;
          heardAt = quietSaid = Date.now();
          watcher.onEvent(event);
          if (event.type === "attempt.finished") finishedAt = event.seq;
          const success = carriedSuccess(event, attempt);
          if (success) return success;
        }
      } catch (error) {
        if (ended) return ended;
        if (watcher.signal.aborted || (error instanceof HttpClientError && error.kind === "tls-mismatch") || wrongAnswer(error)) throw error;
        reason = (error as Error).message;
      }
      if (ended) return ended;
      let answered = true;
      const verdict = await api.verdict(attempt).catch((error: unknown) => {
        // A node busy or restarting (5xx, 429) did not answer, as one out of reach: its attempt may well run on.
        if (!worthAskingAgain(error)) throw error;
        if (error instanceof ApiProblem) reason ??= `${api.where} answered ${error.status} when asked for the verdict: ${error.message}`;
        answered = false;
        return undefined;
      });
      if (verdict && verdict.attempt !== attempt) {
        throw new HttpClientError("schema", api.where, `${api.where} gave an answer that is not its installer's: the verdict of attempt ${verdict.attempt} when asked for attempt ${attempt}'s`);
      }
      if (verdict) return verdict;
      if (answered && finishedAt !== undefined) {
        throw new HttpClientError("schema", api.where, `${api.where} gave an answer that is not its installer's: it sent attempt ${attempt}'s attempt.finished (event ${finishedAt}), yet says it still runs when asked for its verdict; \`status\` on the node shows how it stands, and the fleet run again goes on from there`);
      }
      // It answered that the attempt still runs: in reach, however its stream fares.
      if (answered) outOfReachSince = undefined;
      else outOfReachSince ??= Date.now();
      if (outOfReachSince !== undefined && Date.now() - outOfReachSince > giveUpMs) throw new HttpClientError("unreachable", api.where, `${reason ?? `${api.where} is unreachable: the event stream keeps closing`}; gave up after ${giveUpMs / 1000} s out of reach`);
      if (reason) {
        sameSaid = reason === said ? sameSaid + 1 : 1;
        said = reason;
        if ((sameSaid & (sameSaid - 1)) === 0) watcher.onBreak(sameSaid > 1 ? `${reason} (${sameSaid} times in a row)` : reason, last);
      }
      await sleep((watcher.pauseMs ?? 250) * 2 ** Math.min(tries, 4), undefined, { signal: watcher.signal });
      tries += 1;
    }
  }
}
