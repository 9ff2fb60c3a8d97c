import type { RouteConfig } from "@hono/zod-openapi";
import { randomUUID } from "node:crypto";
import { Hono, type Context, type Next } from "hono";
import { bodyLimit } from "hono/body-limit";
import { secureHeaders } from "hono/secure-headers";
import { clientAddress } from "../core/access/lockout.ts";
import { InstallerError } from "../core/common/errors.ts";
import { printableJsonText } from "../core/common/printable.ts";
import type { Services } from "../core/service/services.ts";
import type { AppEnv } from "./env.ts";

type C = Context<AppEnv>;
/** Undefined when the request may go on at once; a promise when it must wait (the secure headers' first read, a lockout save). */
type Step = void | Promise<void>;

const BODY_LIMIT_BYTES = 1024 * 1024;
const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

/** The paths Hono's `/v1/installer/*` matches: where the install code is asked for. */
const needsCode = (path: string) => path === "/v1/installer" || path.startsWith("/v1/installer/");

/** The headers Hono's secureHeaders middleware adds (no HSTS: the certificate is self-signed), read once. */
async function honoSecureHeaders(): Promise<[string, string][]> {
  const probe = new Hono();
  probe.use(secureHeaders({ strictTransportSecurity: false }));
  probe.get("/", (c) => c.body(null));
  return [...(await probe.request("/")).headers];
}

/** Set on Node's response when there is one: through Hono's Headers, a reply leaves @hono/node-server's fast path. */
function setHeader(c: C, name: string, value: string): void {
  const outgoing = c.env?.outgoing;
  if (outgoing) outgoing.setHeader(name, value);
  else c.header(name, value);
}

/**
 * The answers that carry a firstboot's, a cloud's or another node's text (an attempt's events, verdict and report, a
 * join check), or an operator's or a node.yaml's (the draft, its validation, its review), or the machine's and the
 * payload's (the options: disk models, the hostname, the release). Not /status: its text is made printable once a
 * change (json-text.ts); not the node.yaml schema, which is the installer's own.
 */
const carriesOutsideText = (path: string) =>
  path === "/v1/installer/options" ||
  path.startsWith("/v1/installer/install/") ||
  path.startsWith("/v1/installer/cluster/") ||
  path === "/v1/installer/config" ||
  (path.startsWith("/v1/installer/config/") && path !== "/v1/installer/config/schema");

/**
 * `handler` whose JSON answers are printable JSON (core/common/printable.ts): a C1 control or a bidi override a
 * firstboot printed or a draft holds reaches a terminal that curls the API escaped, never obeyed, and parses back the same. A stream
 * (SSE, whose events are written printable) is left as it is.
 */
function printableAnswers<H extends (c: C, ...rest: never[]) => unknown>(handler: H): H {
  return (async (c: C, ...rest: never[]) => {
    const answer = await handler(c, ...rest);
    if (!(answer instanceof Response) || !/json/.test(answer.headers.get("content-type") ?? "")) return answer;
    const text = await answer.text();
    return new Response(printableJsonText(text), { status: answer.status, statusText: answer.statusText, headers: answer.headers });
  }) as H;
}

/**
 * What every request goes through before its handler: its id (as Hono's requestId makes it), the
 * secure headers Hono chooses, the handlers' context; the body limit on methods that take a body;
 * the install code (and Cache-Control: no-store) under /v1/installer. A route that validates
 * nothing and takes no body gets all of it inside its own one handler, synchronously, so Hono
 * answers it on its one-handler path instead of its async compose (bench/RESULTS.md); the others
 * get it as their route middleware, before their validators, in the same order.
 */
export function createAdmission(services: Services, openapi: () => unknown) {
  const secure = honoSecureHeaders();
  let secureSet: [string, string][] | undefined;
  const limit = bodyLimit({
    maxSize: BODY_LIMIT_BYTES,
    onError: () => {
      throw new InstallerError({ code: "BODY_TOO_LARGE", detail: `The body is over the ${BODY_LIMIT_BYTES} byte limit.` });
    },
  });

  const sendSecure = (c: C, headers: [string, string][], requestId: string) => {
    for (const [name, value] of headers) setHeader(c, name, value);
    setHeader(c, "X-Request-Id", requestId);
  };
  const basics = (c: C): Step => {
    const requestId = randomUUID();
    c.set("requestId", requestId);
    c.set("services", services);
    c.set("openapi", openapi);
    c.set("origin", { requestId, client: clientAddress(c.env?.incoming?.socket?.remoteAddress ?? "unknown") });
    if (secureSet) return sendSecure(c, secureSet, requestId);
    return secure.then((headers) => sendSecure(c, (secureSet = headers), requestId));
  };
  const code = (c: C): Step => {
    // Drafts, node.yaml, the review and the join token carry secrets, and every answer here is of this moment: no cache keeps one.
    setHeader(c, "Cache-Control", "no-store");
    // Node has parsed the headers already; c.req.header() would build a Fetch Headers object.
    return services.auth.authorize(c.get("origin"), c.env?.incoming?.headers.authorization ?? c.req.header("authorization"));
  };
  /** The whole admission as middleware: the body limit answers 413 before the code is looked at. */
  const admit = async (c: C, next: Next, coded: boolean): Promise<Response | void> => {
    await basics(c);
    const rest = async () => {
      if (coded) await code(c);
      await next();
    };
    return BODY_METHODS.has(c.req.method) ? limit(c, rest) : rest();
  };

  return {
    /** A route definition as mounted: its handler or its route middleware does the admission. */
    mount<T extends { route: RouteConfig; handler: (c: C, ...rest: never[]) => unknown }>(definition: T): T {
      const { route } = definition;
      const handler = carriesOutsideText(route.path) ? printableAnswers(definition.handler) : definition.handler;
      if (handler !== definition.handler) definition = { ...definition, handler };
      const coded = needsCode(route.path);
      if (route.request || BODY_METHODS.has(route.method.toUpperCase())) {
        return { ...definition, route: { ...route, middleware: (c: C, next: Next) => admit(c, next, coded) } };
      }
      const direct = handler as (c: C) => unknown;
      const admitted = (c: C) => {
        const ready = basics(c);
        if (ready) return ready.then(() => (coded ? code(c) : undefined)).then(() => direct(c));
        const allowed = coded ? code(c) : undefined;
        return allowed ? allowed.then(() => direct(c)) : direct(c);
      };
      return { ...definition, handler: admitted };
    },
    /** For a request no route matched: the same admission, then the caller's 404. */
    notFound: (c: C): Promise<Response | void> => admit(c, async () => {}, needsCode(c.req.path)),
  };
}
