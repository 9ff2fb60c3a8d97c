import { getEventListeners } from "node:events";
import assert from "node:assert/strict";
import { mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test, type TestContext } from "node:test";
import { stateLayout } from "../../core/state/layout.ts";
import getEvents from "../../handlers/get-install-events.ts";
import { inProcessApp } from "../helpers/app.ts";
import { finished, install, installRig, putDraft, readSse } from "../helpers/install-rig.ts";
import { describeAuth } from "../helpers/route-auth.ts";
import { assertRouteProblem } from "../helpers/route-problem.ts";
import { tempDir, waitFor, type Reply } from "../helpers/installer.ts";
import { assertAnswers } from "../helpers/route-schema.ts";

const { route } = getEvents;
const PATH = "/v1/installer/install/events";

/** A JSON page, as the route documents it. */
function page(reply: Reply) {
  const body = assertAnswers(route, 200, reply);
  assert.ok(typeof body === "object", "application/json, not a stream");
  return body;
}

/** An installer whose attempt 1 has ended, and that attempt's event log's path. */
async function endedAttempt(t: TestContext) {
  const installer = await installRig(t);
  await putDraft(installer);
  await install(installer);
  await finished(installer, 1);
  return { installer, log: stateLayout(installer.stateDir).eventsOf(1) };
}

describe("GET /v1/installer/install/events", () => {
  test("200 JSON: a page of the attempt's events after `after`, finished once the attempt is; the latest attempt by default", async (t) => {
    const installer = await installRig(t);
    await putDraft(installer);
    await install(installer);
    await finished(installer, 1);
    const all = page(await installer.request(`${PATH}?attempt=1`));
    assert.equal(all.attempt, 1);
    assert.equal(all.finished, true);
    assert.equal(all.more, false);
    assert.deepEqual(all.events.map((e: any) => e.seq), all.events.map((_, i) => i + 1));
    assert.equal(all.events.at(-1)?.type, "attempt.finished");
    assert.deepEqual(page(await installer.request(PATH)), all);
    assert.deepEqual(page(await installer.request(`${PATH}?attempt=1&after=3`)), { ...all, events: all.events.slice(3) });
  });

  test("the events are JSON Lines in the state dir, one file an attempt, not in the store document (SPEC §6): the file holds the page's events, line for line", async (t) => {
    const installer = await installRig(t);
    await putDraft(installer);
    await install(installer);
    await finished(installer, 1);
    const { events } = page(await installer.request(`${PATH}?attempt=1`));
    const layout = stateLayout(installer.stateDir);
    const lines = (await readFile(layout.eventsOf(1), "utf8")).split("\n");
    assert.equal(lines.pop(), "", "each line ends with a newline");
    assert.deepEqual(lines.map((line) => JSON.parse(line)), events);
    const store = await readFile(layout.store, "utf8");
    for (const type of ["attempt.started", "step.started", "step.finished", "readiness.poll", "attempt.finished"]) assert.ok(!store.includes(type), `${type} in the store document`);
  });

  test("200 SSE: resume with Last-Event-ID loses and duplicates nothing, and the stream ends at attempt.finished", async (t) => {
    const installer = await installRig(t, { scenario: "progress" });
    await putDraft(installer);
    await install(installer);
    const firstPart = await readSse(installer, `${PATH}?attempt=1`, { stopAfter: 5 });
    assert.equal(firstPart.status, 200);
    assert.match(firstPart.contentType, /^text\/event-stream/);
    const rest = await readSse(installer, `${PATH}?attempt=1`, { lastEventId: firstPart.messages.at(-1)!.id! });
    const events = [...firstPart.messages, ...rest.messages].map((m) => JSON.parse(m.data));
    assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i + 1));
    assert.equal(events.at(-1).type, "attempt.finished");
    assert.deepEqual(events, page(await installer.request(`${PATH}?attempt=1`)).events, "the stream carries the JSON page's events");
  });

  test("200 SSE: the services' stop ends an open stream of a running attempt with the comment ': installer stopping', after what the stop did, and no attempt.finished", async (t) => {
    const installer = await installRig(t, { firstboot: '#!/bin/sh\necho "firstboot: waiting"\nexec sleep 300\n' });
    await putDraft(installer);
    await install(installer);
    await waitFor("firstboot to run", async () => (page(await installer.request(`${PATH}?attempt=1`)).events.some((e: any) => e.message === "firstboot: waiting") ? true : undefined));
    const reading = readSse(installer, `${PATH}?attempt=1`);
    await installer.services.stop();
    const stream = await reading;
    assert.equal(stream.comments.at(-1), ": installer stopping");
    const events = stream.messages.map((m) => JSON.parse(m.data));
    assert.ok(!events.some((e) => e.type === "attempt.finished"));
    assert.match(events.at(-1).message, /^stopped 1 process of firstboot as the installer stops/);
  });

  test("200 SSE: a stream opened once the services stopped ends at once saying so; and no stream, ended by its attempt's end or its client, leaves a listener on the services' stop", async (t) => {
    const installer = await installRig(t);
    await putDraft(installer);
    await install(installer);
    await finished(installer, 1);
    await readSse(installer, `${PATH}?attempt=1`);
    await readSse(installer, `${PATH}?attempt=1`, { stopAfter: 1 });
    await waitFor("each stream's end to take its listener off", async () => (getEventListeners(installer.services.stopped, "abort").length === 0 ? true : undefined));
    await installer.services.stop();
    const late = await readSse(installer, `${PATH}?attempt=1&after=1000`);
    assert.equal(late.comments.at(-1), ": installer stopping");
    assert.deepEqual(late.messages, []);
  });

  test("404 to an event stream (an unknown attempt, or none yet) leaves no listener on the services' stop; many open streams raise no listener-leak warning", async (t) => {
    const installer = await installRig(t);
    for (const path of [`${PATH}?attempt=7`, PATH]) {
      const reply = await installer.request(path, { headers: { accept: "text/event-stream" } });
      assert.equal(reply.status, 404, path);
    }
    assert.equal(getEventListeners(installer.services.stopped, "abort").length, 0);
    // One listener an open stream: eleven streams warn of no leak.
    const warnings: string[] = [];
    const heard = (warning: Error) => warnings.push(warning.name);
    process.on("warning", heard);
    t.after(() => process.off("warning", heard));
    const streams = Array.from({ length: 11 }, () => () => undefined);
    for (const stream of streams) installer.services.stopped.addEventListener("abort", stream);
    await new Promise((resolve) => setImmediate(resolve));
    for (const stream of streams) installer.services.stopped.removeEventListener("abort", stream);
    assert.deepEqual(warnings, []);
  });

  test("Accept is negotiated with its q-values (RFC 9110): a stream only where text/event-stream is preferred; q=0 is refused, */* or no Accept is the JSON page", async (t) => {
    const installer = await installRig(t);
    await putDraft(installer);
    await install(installer);
    await finished(installer, 1);
    for (const accept of ["text/event-stream;q=0, application/json", "application/json;q=1, text/event-stream;q=0.1", "*/*", "application/json", "text/event-stream;q=0"]) {
      const reply = await installer.request(`${PATH}?attempt=1`, { headers: { accept } });
      assert.match(String(reply.headers["content-type"]), /^application\/json/, accept);
      assert.equal(page(reply).finished, true, accept);
    }
    for (const accept of ["text/event-stream", "application/json;q=0.5, text/event-stream", "text/event-stream, */*;q=0.1"]) {
      const reply = await installer.request(`${PATH}?attempt=1`, { headers: { accept } });
      assert.match(String(reply.headers["content-type"]), /^text\/event-stream/, accept);
      // Like every answer under /v1/installer (the events are redacted, but a firstboot's lines are the node's own): Hono's SSE helper says no-cache.
      assert.equal(reply.headers["cache-control"], "no-store", accept);
      assert.match(reply.text, /^id: 1\n/m, accept);
    }
  });

  test("HEAD with Accept: text/event-stream: the stream's headers and no body, and no follower of the attempt left behind", async (t) => {
    const installer = await installRig(t);
    const follow = installer.services.attempts.follow.bind(installer.services.attempts);
    let following = 0;
    installer.services.attempts.follow = (attempt, after, signal) => {
      const events = follow(attempt, after, signal);
      return (async function* () {
        following++;
        try {
          yield* events;
        } finally {
          following--;
        }
      })();
    };
    await putDraft(installer);
    await install(installer);
    const head = await installer.request(PATH, { method: "HEAD", headers: { accept: "text/event-stream" } });
    assert.deepEqual([head.status, head.headers["content-type"], head.headers["cache-control"], head.text], [200, "text/event-stream", "no-store", ""]);
    await finished(installer, 1);
    // A follower ends at attempt.finished, or once its reader is gone: a HEAD has none.
    await waitFor("no follower of the attempt left", async () => (following === 0 ? true : undefined));
  });

  test("400 INVALID_REQUEST for an attempt, after or Last-Event-ID that is not a number", async (t) => {
    const installer = await inProcessApp(t);
    assertRouteProblem(route, await installer.request(`${PATH}?attempt=x`), 400, "INVALID_REQUEST");
    assertRouteProblem(route, await installer.request(`${PATH}?attempt=0`), 400, "INVALID_REQUEST");
    assertRouteProblem(route, await installer.request(`${PATH}?after=-1`), 400, "INVALID_REQUEST");
    // A parameter misspelt would answer for the latest attempt, or from the start, as if it were not there.
    assertRouteProblem(route, await installer.request(`${PATH}?attemp=2`), 400, "INVALID_REQUEST", { detail: /attemp/ });
    assertRouteProblem(route, await installer.request(PATH, { headers: { "last-event-id": "soon" } }), 400, "INVALID_REQUEST");
  });

  test("404 NOT_FOUND for an unknown attempt, and for the latest before any attempt", async (t) => {
    const installer = await inProcessApp(t);
    assertRouteProblem(route, await installer.request(`${PATH}?attempt=7`), 404, "NOT_FOUND");
    assertRouteProblem(route, await installer.request(PATH), 404, "NOT_FOUND");
  });

  test("an ended attempt's log replaced by a link (to another attempt log, outside the state dir): neither the page nor the stream answers the events of the file it leads to", async (t) => {
    const { installer, log } = await endedAttempt(t);
    const outside = join(await tempDir("stratum-outside-"), "elsewhere.jsonl");
    const planted = { seq: 1, attempt: 1, time: "2026-12-04T12:00:00.000Z", type: "step.log", level: "info", message: "OUTSIDE-THE-STATE-DIR" };
    await writeFile(outside, `${JSON.stringify(planted)}\n`);
    await rm(log);
    await symlink(outside, log);
    const json = await installer.request(`${PATH}?attempt=1`);
    // Refused, never answered; the problem names the file and what to do, not a bare "failed to answer".
    assertRouteProblem(route, json, 500, "INTERNAL", { detail: new RegExp(`^the event log ${log.replaceAll("/", "\\/")} is a symbolic link: the installer reads no file of its state dir through a link\\. Put the attempt's log file back in its place`) });
    assert.doesNotMatch(json.text, /OUTSIDE-THE-STATE-DIR/);
    const sse = await readSse(installer, `${PATH}?attempt=1`);
    assert.ok(!sse.messages.some((m) => m.data.includes("OUTSIDE-THE-STATE-DIR")), JSON.stringify(sse.messages));
  });

  test("an ended attempt's log replaced by a folder: 500 naming the file and that it is a folder, not a bare \"failed to answer\"", async (t) => {
    const { installer, log } = await endedAttempt(t);
    await rm(log);
    await mkdir(log);
    assertRouteProblem(route, await installer.request(`${PATH}?attempt=1`), 500, "INTERNAL", { detail: new RegExp(`^the event log ${log.replaceAll("/", "\\/")} is a folder, where the attempt's log file must be\\. `) });
  });

  // Hono's default for a stream whose writer threw (a link in the log's place here; EMFILE under a low open-files
  // limit): a stack trace on stderr, outside the log and unredacted, one a stream.
  test("a stream whose events cannot be read ends, said once in the log as that stream's failure (its client, the attempt, the cause), never as a stack trace on stderr", async (t) => {
    const { installer, log } = await endedAttempt(t);
    await rm(log);
    await symlink(join(installer.stateDir, "elsewhere.jsonl"), log);
    const printed = t.mock.method(console, "error", () => undefined);
    const sse = await readSse(installer, `${PATH}?attempt=1`);
    assert.deepEqual(sse.messages, []);
    assert.equal(printed.mock.callCount(), 0, "nothing printed past the log");
    const lines = installer.log.map((line) => JSON.parse(line)).filter((line) => line.message === "event stream failed");
    assert.equal(lines.length, 1, installer.log.join("\n"));
    assert.equal(lines[0].attempt, 1);
    assert.equal(lines[0].client, "127.0.0.1");
    assert.match(lines[0].error, /is a symbolic link/);
  });

  describeAuth(route, {
    path: PATH,
    breaks: (services) => {
      services.attempts.events = async () => {
        throw new Error("boom");
      };
    },
  });
});
