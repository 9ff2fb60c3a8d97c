import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { RouteConfig } from "@hono/zod-openapi";
import type { Services } from "../../core/service/services.ts";
import { inProcessApp, type AppRequestOptions } from "./app.ts";
import { assertProblem } from "./problem.ts";
import { assertAnswers } from "./route-schema.ts";

interface AuthCase {
  /** The request the route answers (path, method, body); the code is set per test. */
  path: string;
  request?: AppRequestOptions;
  /** Makes the service the route calls fail; by default the install-code check itself fails. */
  breaks?: (services: Services) => void;
}

const breakAuth = (services: Services) => {
  services.auth.authorize = async () => {
    throw new Error("lockout store unreadable at /var/lib/stratum/secret-path");
  };
};

/**
 * The answers every /v1/installer route documents for its auth (authProblems): 401 without the
 * install code or with a wrong one, 429 once an address guessed too often, 500 when a service
 * fails, each as the route documents it.
 */
export function describeAuth(route: RouteConfig | { route: RouteConfig }, { path, request = {}, breaks = breakAuth }: AuthCase): void {
  describe("auth", () => {
    test("no install code → 401 UNAUTHORIZED with the Bearer challenge", async (t) => {
      const installer = await inProcessApp(t);
      const reply = await installer.request(path, { ...request, code: null });
      assertAnswers(route, 401, reply);
      assertProblem(reply, 401, "UNAUTHORIZED");
      assert.equal(reply.headers["www-authenticate"], 'Bearer realm="stratum-installer"');
    });

    test("a wrong install code → 401 UNAUTHORIZED, invalid_token", async (t) => {
      const installer = await inProcessApp(t);
      const reply = await installer.request(path, { ...request, code: "AAAA-BBBB-CCCC" });
      assertAnswers(route, 401, reply);
      assertProblem(reply, 401, "UNAUTHORIZED");
      assert.match(String(reply.headers["www-authenticate"]), /error="invalid_token"/);
    });

    test("the right code after 5 wrong ones from that address → 429 TOO_MANY_ATTEMPTS with Retry-After; another address is not locked out", async (t) => {
      const installer = await inProcessApp(t);
      for (let i = 0; i < 5; i++) await installer.request(path, { ...request, code: `WRNG-${i}`, from: "127.0.0.7" });
      const reply = await installer.request(path, { ...request, from: "127.0.0.7" });
      assertAnswers(route, 429, reply);
      assertProblem(reply, 429, "TOO_MANY_ATTEMPTS");
      assert.ok(Number(reply.headers["retry-after"]) > 0, `Retry-After ${reply.headers["retry-after"]}`);
      const other = (await installer.request(path, { ...request, from: "127.0.0.8" })).status;
      assert.ok(other !== 401 && other !== 429, `another address is not locked out: ${other}`);
    });

    test("a service that fails → 500 INTERNAL naming the request id, no internals", async (t) => {
      const installer = await inProcessApp(t);
      breaks(installer.services);
      const reply = await installer.request(path, request);
      const body = assertAnswers(route, 500, reply);
      assertProblem(reply, 500, "INTERNAL", { detail: `The installer failed to answer; the log has request id ${reply.json.requestId}.` });
      assert.doesNotMatch(JSON.stringify(body), /secret-path/);
    });
  });
}
