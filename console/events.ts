/** Server-Sent Events over fetch (EventSource cannot send the install code), resumed with Last-Event-ID. */
import { API, problemOf, type Failure, type Schemas } from "./api.ts";
import { announce } from "./dom.ts";
import { state } from "./state.ts";

export async function readEvents(attempt: number, signal: AbortSignal, onEvent: (event: Schemas["InstallEvent"]) => void): Promise<void> {
  let lastId = 0;
  for (let failures = 0; !signal.aborted; failures += 1) {
    try {
      const headers: Record<string, string> = { Authorization: "Bearer " + state.code, Accept: "text/event-stream" };
      if (lastId) headers["Last-Event-ID"] = String(lastId);
      const res = await fetch(API + "/install/events?attempt=" + attempt, { headers, signal, cache: "no-store" });
      if (!res.ok) throw problemOf(res, await res.json(), false);
      failures = 0;
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const message = parseMessage(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (!message.data) continue;
          const event: Schemas["InstallEvent"] = JSON.parse(message.data);
          lastId = Number(message.id) || event.seq;
          onEvent(event);
          if (event.type === "attempt.finished") return;
        }
      }
    } catch (err) {
      if (signal.aborted) return;
      if ((err as Failure).status) throw err;
    }
    announce("The event stream broke off; reconnecting.");
    await new Promise((resolve) => setTimeout(resolve, Math.min(500 * 2 ** failures, 8000)));
  }
}

function parseMessage(block: string): { id: string; data: string } {
  const message = { id: "", data: "" };
  for (const line of block.split("\n")) {
    if (line.startsWith("id:")) message.id = line.slice(3).trim();
    else if (line.startsWith("data:")) message.data += (message.data ? "\n" : "") + line.slice(5).replace(/^ /, "");
  }
  return message;
}
