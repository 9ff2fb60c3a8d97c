import assert from "node:assert/strict";
import { test } from "node:test";
import { readEvents } from "../../console/api.ts";
import { STOPPING_COMMENT } from "../../core/http/stopping.ts";

const EVENT = `id: 1\ndata: {"seq":1,"type":"step.log"}\n\n`;

test("console/api.ts's event reader says a stream that ends with the installer's word that it stops (a restart, or a stop) as that, and so each try after it until a stream opens again; one that ends otherwise is a break", async (t) => {
  // Attempt i's tries, each a stream's text or a fetch that fails (the installer not answering); the page's fetch stood in for.
  const tries: (string | Error)[][] = [
    [`${EVENT}: ${STOPPING_COMMENT}\n\n`],
    [`${EVENT}: ${STOPPING_COMMENT}\n\n: heartbeat\n\n`],
    [`${EVENT}: ${STOPPING_COMMENT}\n\nid: 2\ndata: {"seq":2,"type":"step.log"}\n\n`],
    [`: heartbeat\n\n${EVENT}`],
    [`${EVENT}: ${STOPPING_COMMENT}\n\n`, new TypeError("fetch failed"), `: heartbeat\n\n`],
  ];
  t.mock.method(globalThis, "fetch", async (url: string) => {
    const next = tries[Number(new URL(url, "https://installer.test").searchParams.get("attempt"))]!.shift()!;
    if (next instanceof Error) throw next;
    return new Response(next, { headers: { "content-type": "text/event-stream" } });
  });
  const said = await Promise.all(
    tries.map(async (answers, attempt) => {
      const reading = new AbortController();
      const breaks: boolean[] = [];
      await readEvents("CODE", attempt, reading.signal, () => undefined, (stopping) => (breaks.push(stopping), answers.length === 0 && reading.abort()), () => undefined);
      return breaks;
    }),
  );
  assert.deepEqual(said, [[true], [false], [false], [false], [true, true, false]]);
});

test("console/api.ts's event reader, stopped while it waits to reconnect (the page moved on), ends then, not after its wait", async (t) => {
  t.mock.method(globalThis, "fetch", async () => new Response(EVENT, { headers: { "content-type": "text/event-stream" } }));
  const reading = new AbortController();
  let broke!: () => void;
  const broken = new Promise<void>((resolve) => (broke = resolve));
  const done = readEvents("CODE", 1, reading.signal, () => undefined, () => broke(), () => undefined).then(() => "ended");
  await broken;
  reading.abort();
  // The wait to reconnect is 500 ms at least; what is left once it is aborted is promise callbacks, all run before setImmediate's.
  assert.equal(await Promise.race([done, new Promise((resolve) => setImmediate(() => resolve("still waiting")))]), "ended");
});
