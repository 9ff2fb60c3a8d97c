import { replyOf, type InProcessApp } from "./app.ts";
import { assertConforms } from "./conformance.ts";

/** Where generated clients point: app.request reads only the path. */
export const APP_BASE_URL = "http://installer.test";

/**
 * fetch for generated clients over the in-process app (app.request, no socket), with the
 * conformance check every spawned reply gets; the install code is the client's to send.
 */
export function appFetch(installer: InProcessApp): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const response = await installer.app.request(request);
    // Checked on a copy: the client reads the answer's own bytes (a gzip stream is no text).
    const reply = await replyOf(response.clone());
    await assertConforms({ method: request.method, url: request.url, ...reply });
    return response;
  };
}
