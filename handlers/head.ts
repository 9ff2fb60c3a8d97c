/**
 * A HEAD is answered as its GET is, the body cancelled unsent (handlers/app.ts). The GET made for a HEAD is known
 * here, so that a handler that streams does not take the cancelled body for a failure.
 */
const made = new WeakSet<Request>();

/** The GET that answers `head`'s headers. */
export function getForHead(head: Request): Request {
  const get = new Request(head, { method: "GET" });
  made.add(get);
  return get;
}

/** The request is the GET of a HEAD: its body is cancelled once the headers are known, and no client misses it. */
export const answersHead = (request: Request): boolean => made.has(request);
