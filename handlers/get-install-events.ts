import { createRoute, defineOpenAPIRoute, z } from "@hono/zod-openapi";
import { accepts } from "hono/accepts";
import { streamSSE } from "hono/streaming";
import type { AppEnv } from "./env.ts";
import { writeEvents } from "./sse-events.ts";
import { EventSchema } from "./schemas/install.ts";
import { authProblems, invalidRequestResponse, problemResponses } from "./schemas/problem.ts";
import { security } from "./schemas/common.ts";

const EventsPageSchema = z
  .object({
    attempt: z.number().int(),
    events: z.array(EventSchema),
    finished: z.boolean().meta({ description: "The attempt has finished and these are its last events." }),
    more: z.boolean().meta({ description: "More events follow: ask again with after = the last seq." }),
  })
  .meta({ id: "EventsPage" });

const route = createRoute({
  method: "get",
  path: "/v1/installer/install/events",
  tags: ["Install"],
  operationId: "getEvents",
  summary: "An attempt's events, as JSON or a live stream.",
  description:
    "Events with seq > after, of the latest attempt or ?attempt=N, oldest first, at most 1000 a page. With Accept: text/event-stream (preferred over application/json by its q-value, as RFC 9110 weighs them), a Server-Sent Events stream: the replay, then live events as they happen (id = seq; resume with Last-Event-ID; comment lines as heartbeats); it closes after attempt.finished, or, when the installer stops first, after the comment `: installer stopping` (follow again once it answers).",
  security,
  request: {
    query: z.strictObject({
      attempt: z.coerce.number().int().min(1).optional().meta({ description: "The attempt number; default the latest." }),
      // type stated: a coerced 0 from null passes min(0), and the generator then calls the parameter nullable.
      after: z.coerce.number().int().min(0).optional().meta({ description: "Only events with a greater seq.", type: "integer", minimum: 0 }),
    }),
    headers: z.object({ "last-event-id": z.string().regex(/^\d+$/).optional().meta({ description: "SSE resume point: the last seq received." }) }),
  },
  responses: {
    200: {
      description: "The events: a page of InstallEvent objects (application/json), or a stream of them (text/event-stream).",
      content: {
        "application/json": { schema: EventsPageSchema },
        "text/event-stream": {
          schema: z.string().meta({
            description:
              "Server-Sent Events, one per InstallEvent: `id: <seq>`, then `data:` with the event as one line of JSON, an InstallEvent (#/components/schemas/InstallEvent), the object the JSON variant lists in `events`. Lines starting with `:` are comments: heartbeats, and `: installer stopping` as the last line when the installer stops before the attempt finished. The stream ends after the attempt.finished event, or after that comment.",
          }),
        },
      },
    },
    ...authProblems,
    400: invalidRequestResponse("The query (attempt, after) or Last-Event-ID is not the expected shape"),
    ...problemResponses(404),
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({
  route,
  handler: async (c) => {
    const { attempt, after } = c.req.valid("query");
    const lastEventId = c.req.valid("header")["last-event-id"];
    const from = lastEventId !== undefined ? Number(lastEventId) : (after ?? 0);
    const { attempts, stopped, log } = c.get("services");
    // Negotiated by q-value: `text/event-stream;q=0, application/json` is a page, not a stream.
    if (accepts(c, { header: "Accept", supports: ["application/json", "text/event-stream"], default: "application/json" }) !== "text/event-stream") {
      return c.json(await attempts.events(attempt, from), 200);
    }
    // The client gone, or the services stopped (what the stop did is in the stream): the stream ends, for a stop saying
    // so, never a reset. A listener taken off at the end, not AbortSignal.any: Node 18 keeps each signal it derives
    // from the process-long `stopped` for good (66 B a stream, reconnections included).
    const gone = new AbortController();
    const stop = () => gone.abort();
    // Before the listener: an unknown attempt is a 404 here, which would leave it behind.
    const events = attempts.follow(attempt, from, gone.signal);
    if (stopped.aborted) stop();
    else stopped.addEventListener("abort", stop, { once: true });
    const stream = streamSSE(c, async (sse) => {
      sse.onAbort(stop);
      try {
        await writeEvents(sse, events, stopped);
      } catch (err) {
        // Not Hono's default (a stack trace on stderr, outside the log): the stream ends, its client following again from
        // its last event (Last-Event-ID) once the cause is gone.
        log.error("event stream failed", { ...c.get("origin"), attempt: attempt ?? "latest", error: String(err) });
      } finally {
        stopped.removeEventListener("abort", stop);
      }
    });
    // The helper says no-cache; like every answer here, no cache keeps it.
    stream.headers.set("Cache-Control", "no-store");
    return stream as never;
  },
});
