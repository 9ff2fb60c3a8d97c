import assert from "node:assert/strict";
import { RAW } from "./printable-json.ts";

/** A reply as the e2e helpers read it, or as the in-process app helper reads a Response. */
interface ProblemReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

export interface ProblemExpectations {
  detail?: string | RegExp;
  errors?: unknown;
  blockers?: unknown;
  /** Prefixes every failure message: what was sent. */
  what?: string;
}

const MEMBERS = new Set(["type", "title", "status", "detail", "code", "requestId", "errors", "blockers"]);

/**
 * SPEC §4: a non-2xx reply is application/problem+json with type, title, status, detail, code and
 * requestId (also sent as X-Request-Id), `errors` for INVALID_CONFIG, `blockers` for
 * INSTALL_BLOCKED, nothing else and no stack trace. Returns the body.
 */
export function assertProblem(reply: ProblemReply, status: number, code: string, expected: ProblemExpectations = {}): any {
  const say = (message: string) => (expected.what ? `${expected.what}: ${message}` : message);
  assert.equal(reply.status, status, say(reply.text.slice(0, 300)));
  assert.match(String(reply.headers["content-type"]), /^application\/problem\+json/, say(`content-type ${reply.headers["content-type"]}`));
  const body = reply.json;
  assert.equal(body?.status, status, say("status member"));
  assert.equal(body.code, code, say(reply.text.slice(0, 300)));
  assert.equal(body.type, `urn:stratum:installer:problem:${code.toLowerCase().replaceAll("_", "-")}`, say("type member"));
  assert.equal(typeof body.title, "string", say("title member"));
  assert.equal(typeof body.detail, "string", say("detail member"));
  assert.ok(typeof body.requestId === "string" && body.requestId.length > 0, say("requestId member"));
  assert.equal(reply.headers["x-request-id"], body.requestId, say("X-Request-Id is the body's requestId"));
  assert.deepEqual(Object.keys(body).filter((key) => !MEMBERS.has(key)), [], say("only the members SPEC §4 names"));
  if (code === "INVALID_CONFIG") assert.ok(Array.isArray(body.errors) && body.errors.length > 0, say("INVALID_CONFIG lists its errors"));
  if (status === 401) assert.match(String(reply.headers["www-authenticate"]), /^Bearer realm="stratum-installer"/, say("a 401 names its scheme (RFC 6750)"));
  if (code === "INSTALL_BLOCKED") assert.ok(Array.isArray(body.blockers) && body.blockers.length > 0, say("INSTALL_BLOCKED lists its blockers"));
  assert.doesNotMatch(reply.text, /at .*\.(js|ts):\d+/, say("no stack trace in a problem body"));
  assert.doesNotMatch(reply.text, RAW, say("a problem is printable JSON: what a terminal may obey or reorder is written out"));
  if (typeof expected.detail === "string") assert.equal(body.detail, expected.detail, say("detail"));
  else if (expected.detail) assert.match(body.detail, expected.detail, say("detail"));
  if ("errors" in expected) assert.deepEqual(body.errors, expected.errors, say("errors"));
  if ("blockers" in expected) assert.deepEqual(body.blockers, expected.blockers, say("blockers"));
  return body;
}
