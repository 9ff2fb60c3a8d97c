import type { RouteConfig } from "@hono/zod-openapi";
import type { Reply } from "./installer.ts";
import { assertProblem, type ProblemExpectations } from "./problem.ts";
import { assertAnswers } from "./route-schema.ts";

/** A problem reply that is one of `route`'s documented answers and a SPEC §4 problem with `code`; returns the body. */
export function assertRouteProblem(route: RouteConfig, reply: Reply, status: number, code: string, expected?: ProblemExpectations): any {
  assertAnswers(route, status, reply);
  return assertProblem(reply, status, code, expected);
}
