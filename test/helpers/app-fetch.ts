import type { InProcessApp } from "./app.ts";
import { violations } from "./conformance.ts";

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
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const problems = await violations({ method: request.method, url: request.url, status: response.status, headers: Object.fromEntries(response.headers), text, json });
    if (problems.length > 0) throw new Error(`the reply does not conform to /openapi.json:\n${problems.join("\n")}\n${text.slice(0, 2000)}`);
    return new Response(response.status === 204 ? null : text, { status: response.status, headers: response.headers });
  };
}
