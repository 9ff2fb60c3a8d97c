import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NodeApi } from "../../../cli/fleet/api.ts";
import { fakeInstaller } from "../../helpers/fake-node.ts";
import { ApiProblem, type InstallEvent, type Verdict } from "../../../cli/fleet/api.ts";
import { HttpClientError } from "../../../core/http/client.ts";
import { followAttempt } from "../../../cli/fleet/watch.ts";
import { waitFor } from "../../helpers/installer.ts";

const event = (seq: number, type: InstallEvent["type"] = "step.log"): InstallEvent => ({ seq, attempt: 1, time: "2026-01-01T00:00:00.000Z", type, level: "info", message: `event ${seq}` });
const VERDICT = { attempt: 1, kind: "install", outcome: "succeeded", step: "readiness", code: null, message: "installed", next: "none" } as Verdict;

/** An installer whose stream breaks after `breakAfter` events of each connection, with `total` events in all. */
function flakyInstaller(total: number, breakAfter: number) {
  const asked: number[] = [];
  return {
    asked,
    where: "127.0.0.1:9443",
    async *events(_attempt: number, after: number) {
      asked.push(after);
      for (let seq = after + 1, sent = 0; seq <= total; seq += 1, sent += 1) {
        if (sent === breakAfter) throw new Error("socket hang up");
        yield event(seq, seq === total ? "attempt.finished" : "step.log");
      }
    },
    async verdict() {
      return asked.length > 0 && asked.at(-1)! + breakAfter >= total ? VERDICT : undefined;
    },
  };
}

describe("fleet: following an attempt", () => {
  it("a stream that breaks is resumed after the last event received (Last-Event-ID): each event once, in order", async () => {
    const installer = flakyInstaller(10, 4);
    const seen: number[] = [];
    const breaks: number[] = [];
    const verdict = await followAttempt(installer, 1, 0, { signal: new AbortController().signal, onEvent: (e) => seen.push(e.seq), onBreak: (_, seq) => breaks.push(seq) });
    assert.deepEqual(verdict, VERDICT);
    assert.deepEqual(seen, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert.deepEqual(installer.asked, [0, 4, 8]);
    assert.deepEqual(breaks, [4, 8]);
  });

  it("resumes from the event it is told: what an earlier run showed is not shown again", async () => {
    const installer = flakyInstaller(6, 100);
    const seen: number[] = [];
    await followAttempt(installer, 1, 3, { signal: new AbortController().signal, onEvent: (e) => seen.push(e.seq), onBreak: () => undefined });
    assert.deepEqual(seen, [4, 5, 6]);
  });

  it("a certificate that is no longer the pinned one is not retried", async () => {
    const installer = {
      where: "x",
      events: () => (async function* () { throw new HttpClientError("tls-mismatch", "x", "x presented another certificate", { presented: "cd".repeat(32) }); })(),
      verdict: async () => undefined,
    };
    await assert.rejects(followAttempt(installer, 1, 0, { signal: new AbortController().signal, onEvent: () => undefined, onBreak: () => undefined }), { kind: "tls-mismatch" });
  });

  it("an answer no installer gives (events or a verdict of the wrong shape, a stream over its cap) is not retried", async () => {
    for (const [kind, where] of [["schema", "events"], ["too-large", "events"], ["schema", "verdict"]] as const) {
      const wrong = new HttpClientError(kind, "x", `x gave an answer that is not its installer's (${kind})`);
      let asked = 0;
      const installer = {
        where: "x",
        events: () => (async function* () { asked += 1; if (where === "events") throw wrong; yield event(1, "attempt.finished"); })(),
        verdict: async (): Promise<Verdict | undefined> => { if (where === "verdict") throw wrong; return undefined; },
      };
      await assert.rejects(followAttempt(installer, 1, 0, { signal: new AbortController().signal, onEvent: () => undefined, onBreak: () => undefined }), wrong);
      assert.equal(asked, 1, `${kind} in ${where}: asked once`);
    }
  });

  it("an event stream in malformed HTTP (its chunked body broken after an event), from a node whose every answer is malformed: not followed on as a node out of reach, it ends at once naming the parser's code", async (t) => {
    let streams = 0;
    const node = await fakeInstaller(t, (req) => {
      if (!req.url!.includes("/install/events")) return req.socket.end("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}");
      streams += 1;
      const data = `id: 1\ndata: ${JSON.stringify(event(1))}\n\n`;
      req.socket.end(`HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n${Buffer.byteLength(data).toString(16)}\r\n${data}\r\nzz\r\n`);
    });
    const api = new NodeApi({ url: node.url, pin: node.pin, code: "c" });
    const breaks: string[] = [];
    await assert.rejects(followAttempt(api, 1, 0, { signal: new AbortController().signal, onEvent: () => undefined, onBreak: (reason) => breaks.push(reason), giveUpMs: 0, pauseMs: 1 }), (error: HttpClientError) => {
      assert.deepEqual([error.kind, error.message], ["malformed", `${node.url.host} gave an answer that is not its installer's: malformed HTTP (HPE_INVALID_CHUNK_SIZE: Invalid character in chunk size)`]);
      return true;
    });
    assert.deepEqual([breaks, streams], [[], 1], "no break said, the stream not asked again");
  });

  it("a success the attempt.finished event carries ends the following without asking for the verdict (one request less between one node and the next); a failure is asked for", async () => {
    for (const outcome of ["succeeded", "failed"] as const) {
      const carried = { ...VERDICT, outcome, ...(outcome === "failed" ? { code: "READINESS_TIMEOUT", next: "recheckReadiness" } : {}) } as Verdict;
      let asked = 0;
      const installer = {
        where: "x",
        events: () => (async function* () { yield { ...event(1, "attempt.finished"), data: { verdict: carried } }; })(),
        verdict: async () => ((asked += 1), carried),
      };
      const verdict = await followAttempt(installer, 1, 0, { signal: new AbortController().signal, onEvent: () => undefined, onBreak: () => undefined });
      assert.deepEqual(verdict, carried);
      assert.equal(asked, outcome === "succeeded" ? 0 : 1, outcome);
    }
  });

  it("an attempt.finished event whose verdict is not of the API's shape, or of another attempt, is no verdict: it is asked for", async () => {
    for (const data of [{ verdict: { ...VERDICT, outcome: "maybe" } }, { verdict: { ...VERDICT, attempt: 2 } }, {}]) {
      let asked = 0;
      const installer = {
        where: "x",
        events: () => (async function* () { yield { ...event(1, "attempt.finished"), data }; })(),
        verdict: async () => ((asked += 1), VERDICT),
      };
      assert.deepEqual(await followAttempt(installer, 1, 0, { signal: new AbortController().signal, onEvent: () => undefined, onBreak: () => undefined }), VERDICT);
      assert.equal(asked, 1);
    }
  });

  it("events that do not go up (a stream that replays what it sent, whatever Last-Event-ID says) are an answer no installer gives: the following ends at once, not retried forever", async () => {
    for (const replay of [[1, 2, 3, 1], [1, 2, 2], [3, 1]]) {
      let asked = 0;
      const seen: number[] = [];
      const installer = {
        where: "x",
        events: () => (async function* () { asked += 1; for (const seq of replay) yield event(seq); })(),
        verdict: async () => undefined,
      };
      const following = followAttempt(installer, 1, 0, { signal: new AbortController().signal, onEvent: (e) => seen.push(e.seq), onBreak: () => undefined });
      await assert.rejects(following, (error: HttpClientError) => error.kind === "schema" && /event \d+ of attempt 1 after event \d+ of attempt 1/.test(error.message) && /attempt 1 may well run on there: `status` on the node shows it, and the fleet run again follows it/.test(error.message));
      assert.equal(asked, 1, `${replay}: asked once`);
      assert.deepEqual(seen, replay.slice(0, -1), "each event shown once, the replayed one not");
    }
  });

  it("a resumed stream whose first event is not past Last-Event-ID replays what was shown: the same", async () => {
    const installer = { where: "x", events: () => (async function* () { yield event(2); })(), verdict: async () => undefined };
    await assert.rejects(followAttempt(installer, 1, 2, { signal: new AbortController().signal, onEvent: () => undefined, onBreak: () => undefined }), { kind: "schema" });
  });

  it("an event of another attempt than the one followed (its finished event included) is an answer no installer gives: no success is taken from it", async () => {
    const installer = {
      where: "x",
      events: () => (async function* () { yield { ...event(1), attempt: 7 }; yield { ...event(2, "attempt.finished"), attempt: 7, data: { verdict: VERDICT } }; })(),
      verdict: async () => undefined,
    };
    const seen: number[] = [];
    await assert.rejects(followAttempt(installer, 1, 0, { signal: new AbortController().signal, onEvent: (e) => seen.push(e.seq), onBreak: () => undefined }), (error: HttpClientError) => error.kind === "schema" && /attempt 7/.test(error.message));
    assert.deepEqual(seen, []);
  });

  it("a verdict of another attempt than the one followed, asked for after the stream broke, is an answer no installer gives: no success is taken from it", async () => {
    const installer = { where: "x", events: () => (async function* () { throw new Error("socket hang up"); })(), verdict: async () => ({ ...VERDICT, attempt: 7 }) };
    await assert.rejects(followAttempt(installer, 1, 0, { signal: new AbortController().signal, onEvent: () => undefined, onBreak: () => undefined }), (error: HttpClientError) => error.kind === "schema" && /the verdict of attempt 7 when asked for attempt 1's/.test(error.message));
  });

  // It was asked again every few seconds for good: the fleet hung on that node, its joins never started.
  it("a node that sent its attempt's attempt.finished and then says the attempt still runs is an answer no installer gives: not asked for ever", async () => {
    const failed = { ...VERDICT, outcome: "failed", code: "FIRSTBOOT_FAILED", next: "retryInstall" } as Verdict;
    const stop = new AbortController();
    let asked = 0;
    const installer = {
      where: "x",
      events: () => (async function* () { yield event(1); yield { ...event(2, "attempt.finished"), data: { verdict: failed } }; })(),
      verdict: async () => {
        if (++asked >= 5) stop.abort(new Error(`asked ${asked} times`));
        return undefined;
      },
    };
    const following = followAttempt(installer, 1, 0, { signal: stop.signal, onEvent: () => undefined, onBreak: () => undefined, pauseMs: 1 });
    await assert.rejects(following, (error: HttpClientError) => error.kind === "schema" && /sent attempt 1's attempt\.finished \(event 2\), yet says it still runs/.test(error.message));
    assert.equal(asked, 1);
  });

  it("a node that answers that its attempt still runs is in reach, however its stream fares: not given up; one that does not answer is", async () => {
    let running = 2;
    const answering = { where: "x", events: () => (async function* () { throw new Error("socket hang up"); })(), verdict: async () => (running-- > 0 ? undefined : VERDICT) };
    assert.deepEqual(await followAttempt(answering, 1, 0, { signal: new AbortController().signal, onEvent: () => undefined, onBreak: () => undefined, giveUpMs: 0 }), VERDICT);
    const silent = { where: "x", events: () => (async function* () { throw new Error("socket hang up"); })(), verdict: async (): Promise<Verdict | undefined> => { throw new HttpClientError("unreachable", "x", "connect ECONNREFUSED"); } };
    await assert.rejects(followAttempt(silent, 1, 0, { signal: new AbortController().signal, onEvent: () => undefined, onBreak: () => undefined, giveUpMs: 0 }), (error: HttpClientError) => error.kind === "unreachable" && /gave up after 0 s out of reach/.test(error.message));
  });

  it("a verdict answered 5xx or 429 (a node busy or restarting) is a node that did not answer: asked again, its running attempt not taken for failed", async () => {
    for (const status of [500, 502, 503, 429]) {
      const answers: (() => Verdict | undefined)[] = [
        () => {
          throw new ApiProblem(status, { code: status === 429 ? "TOO_MANY_ATTEMPTS" : "INTERNAL", detail: "busy" });
        },
        () => undefined,
        () => VERDICT,
      ];
      const installer = { where: "x", events: () => (async function* () { throw new Error("socket hang up"); })(), verdict: async () => answers.shift()!() };
      assert.deepEqual(await followAttempt(installer, 1, 0, { signal: new AbortController().signal, onEvent: () => undefined, onBreak: () => undefined }), VERDICT, `HTTP ${status}`);
    }
    // Out of reach all along: given up as any node that does not answer.
    const busy = { where: "x", events: () => (async function* () { throw new Error("socket hang up"); })(), verdict: async (): Promise<Verdict | undefined> => { throw new ApiProblem(503, { code: "INTERNAL", detail: "busy" }); } };
    await assert.rejects(followAttempt(busy, 1, 0, { signal: new AbortController().signal, onEvent: () => undefined, onBreak: () => undefined, giveUpMs: 0 }), (error: HttpClientError) => error.kind === "unreachable");
    // Any other refusal is the node's answer.
    const refusing = { where: "x", events: () => (async function* () { throw new Error("socket hang up"); })(), verdict: async (): Promise<Verdict | undefined> => { throw new ApiProblem(404, { code: "NOT_FOUND", detail: "no attempt 1" }); } };
    await assert.rejects(followAttempt(refusing, 1, 0, { signal: new AbortController().signal, onEvent: () => undefined, onBreak: () => undefined }), (error: ApiProblem) => error.status === 404);
  });

  it("a stream that sends nothing for a while (heartbeats only) is said, and said again while it lasts; the following goes on", async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const installer = { where: "x", events: () => (async function* () { yield event(1); await released; yield { ...event(2, "attempt.finished"), data: { verdict: VERDICT } }; })(), verdict: async () => undefined };
    const quiet: number[] = [];
    const following = followAttempt(installer, 1, 0, { signal: new AbortController().signal, onEvent: () => undefined, onBreak: () => undefined, onQuiet: (_, seq) => quiet.push(seq), quietMs: 20 });
    await waitFor("said twice", async () => (quiet.length >= 2 ? true : undefined));
    release();
    assert.deepEqual(await following, VERDICT);
    assert.ok(quiet.every((seq) => seq === 1), "after event 1");
  });

  it("a stream that only beats while its attempt has ended (its attempt.finished never sent) ends with the verdict the node gives when asked, as the quiet is said", { timeout: 30_000 }, async () => {
    const never = new Promise<void>(() => undefined);
    let asked = 0;
    const installer = {
      where: "x",
      events: (_attempt: number, _after: number, signal: AbortSignal) =>
        (async function* () {
          yield event(1);
          await Promise.race([never, new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }))]);
        })(),
      verdict: async () => (++asked >= 2 ? VERDICT : undefined),
    };
    const quiet: number[] = [];
    // What a real stream's socket does: keeps the process alive while it waits (the quiet's timer does not).
    const socket = setInterval(() => undefined, 1000);
    const verdict = await followAttempt(installer, 1, 0, { signal: new AbortController().signal, onEvent: () => undefined, onBreak: () => undefined, onQuiet: (_, seq) => quiet.push(seq), quietMs: 20 }).finally(() => clearInterval(socket));
    assert.deepEqual(verdict, VERDICT);
    assert.ok(asked >= 2 && quiet.length >= 2, `asked ${asked}, quiet said ${quiet.length} times`);
  });
});

describe("fleet: a stream that keeps failing while its node answers", () => {
  it("the same break is said at its 1st, 2nd, 4th, 8th… time in a row, not at every try (a 404 for the events of an attempt the node says runs: a warning every 4 s for the whole readiness wait)", async () => {
    let verdicts = 0;
    const installer = {
      where: "x",
      events: () => (async function* () { throw new HttpClientError("unreachable", "x", "no such attempt"); })(),
      verdict: async () => (++verdicts < 20 ? undefined : VERDICT),
    };
    const said: string[] = [];
    const verdict = await followAttempt(installer as never, 1, 0, { signal: new AbortController().signal, onEvent: () => undefined, onBreak: (reason) => said.push(reason), pauseMs: 1 });
    assert.equal(verdict.outcome, "succeeded");
    assert.deepEqual(said, ["no such attempt", "no such attempt (2 times in a row)", "no such attempt (4 times in a row)", "no such attempt (8 times in a row)", "no such attempt (16 times in a row)"]);
  });
});
