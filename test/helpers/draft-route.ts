import assert from "node:assert/strict";
import type { RouteConfig } from "@hono/zod-openapi";
import type { AppRequestOptions, InProcessApp } from "./app.ts";
import { assertProblem } from "./problem.ts";
import { assertAnswers } from "./route-schema.ts";

/** A refused draft write answers the problem its route documents and changes nothing: the draft keeps its ETag and body. */
export async function assertRefusedUnchanged(
  installer: InProcessApp,
  route: RouteConfig | { route: RouteConfig },
  path: string,
  request: AppRequestOptions,
  status: number,
  code: string,
  detail?: RegExp,
): Promise<void> {
  const before = await installer.request("/v1/installer/config");
  const reply = await installer.request(path, request);
  assertAnswers(route, status, reply);
  assertProblem(reply, status, code, { detail });
  const after = await installer.request("/v1/installer/config");
  assert.equal(after.headers.etag, before.headers.etag);
  assert.deepEqual(after.json, before.json);
}
