import { httpsCall } from "./installer.ts";

/**
 * fetch for generated clients: the installer's certificate is self-signed, so requests go through
 * node:https (and the conformance check every reply gets); the install code is the client's to send.
 */
export const selfSignedFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
  const reply = await httpsCall(request.url, { method: request.method, body, headers: Object.fromEntries(request.headers), code: null });
  const headers = new Headers();
  for (const [name, value] of Object.entries(reply.headers)) if (typeof value === "string") headers.set(name, value);
  return new Response(reply.status === 204 ? null : reply.text, { status: reply.status, headers });
};
