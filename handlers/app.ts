import { OpenAPIHono } from "@hono/zod-openapi";
import { randomUUID } from "node:crypto";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { secureHeaders } from "hono/secure-headers";
import { clientAddress } from "../core/access/lockout.ts";
import { InstallerError } from "../core/common/errors.ts";
import type { Services } from "../core/service/services.ts";
import type { AppEnv } from "./env.ts";
import { ROUTES } from "./index.ts";
import { invalidRequestFromZod, problem, toInstallerError } from "./problem.ts";

const BODY_LIMIT_BYTES = 1024 * 1024;
const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

const OPENAPI_INFO = {
  openapi: "3.1.0",
  info: {
    title: "Stratum installer",
    description:
      "The stage-2 installer of a Stratum node: choose the install mode, fill and validate the draft config, run and follow install attempts. Every /v1/installer endpoint needs the install code shown in the installer's banner.",
    contact: { name: "Stratum installer maintainers" },
    license: { name: "Apache-2.0", identifier: "Apache-2.0" },
  },
  // The variable's default is the node's address; a `description` here fails swagger-parser's 3.1 schema.
  servers: [{ url: "https://{node}:9443", variables: { node: { default: "127.0.0.1" } } }],
  tags: [
    { name: "Installer", description: "Where the install stands." },
    { name: "Config", description: "Install options and the draft config." },
    { name: "Install", description: "Install attempts: start, follow, verdict, report." },
    { name: "Cluster", description: "Joining a hyperconverged cluster: check a join before installing, and the token joining nodes need." },
    { name: "Service", description: "Liveness and the API description; no install code." },
  ],
};

/** The headers Hono's secureHeaders middleware adds (no HSTS: the certificate is self-signed), read once. */
async function honoSecureHeaders(): Promise<[string, string][]> {
  const probe = new Hono();
  probe.use(secureHeaders({ strictTransportSecurity: false }));
  probe.get("/", (c) => c.body(null));
  return [...(await probe.request("/")).headers];
}

export function createApp(services: Services) {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) return problem(c, invalidRequestFromZod(result.error, result.target));
    },
  });

  const secure = honoSecureHeaders();
  let secureSet: [string, string][] | undefined;
  let document: unknown;
  const openapi = () => (document ??= openApiDocument(services.version));
  const limit = bodyLimit({
    maxSize: BODY_LIMIT_BYTES,
    onError: () => {
      throw new InstallerError({ code: "BODY_TOO_LARGE", detail: `The body is over the ${BODY_LIMIT_BYTES} byte limit.` });
    },
  });
  // One middleware for what every request needs (a profile under load showed each extra step
  // costing): its id (as Hono's requestId makes it), the secure headers Hono chooses, set on Node's
  // response rather than through Hono's Headers so replies stay on @hono/node-server's fast path
  // (bench/RESULTS.md), the handlers' context, and the body limit on methods that take a body.
  app.use(async (c, next) => {
    const requestId = randomUUID();
    c.set("requestId", requestId);
    c.set("services", services);
    c.set("openapi", openapi);
    c.set("origin", { requestId, client: clientAddress(c.env?.incoming?.socket?.remoteAddress ?? "unknown") });
    const headers = secureSet ?? (secureSet = await secure);
    const outgoing = c.env?.outgoing;
    if (outgoing) {
      for (const [name, value] of headers) outgoing.setHeader(name, value);
      outgoing.setHeader("X-Request-Id", requestId);
    } else {
      for (const [name, value] of headers) c.header(name, value);
      c.header("X-Request-Id", requestId);
    }
    return BODY_METHODS.has(c.req.method) ? limit(c, next) : next();
  });
  app.use("/v1/installer/*", async (c, next) => {
    // Drafts, node.yaml, the review and the join token carry secrets, and every answer here is of this moment: no cache keeps one.
    const outgoing = c.env?.outgoing;
    if (outgoing) outgoing.setHeader("Cache-Control", "no-store");
    else c.header("Cache-Control", "no-store");
    // Node has parsed the headers already; c.req.header() would build a Fetch Headers object.
    await services.auth.authorize(c.get("origin"), c.env?.incoming?.headers.authorization ?? c.req.header("authorization"));
    await next();
  });

  app.openapiRoutes(ROUTES);

  app.notFound((c) => problem(c, new InstallerError({ code: "NOT_FOUND", detail: `No endpoint ${c.req.method} ${c.req.path}. /openapi.json lists every route.` })));
  app.onError((err, c) => {
    const known = toInstallerError(err);
    if (known?.code === "INSUFFICIENT_STORAGE") services.log.error("state dir write failed", { ...c.get("origin"), method: c.req.method, path: c.req.path, detail: known.detail });
    if (known) return problem(c, known);
    services.log.error("request failed", { ...c.get("origin"), method: c.req.method, path: c.req.path, error: String(err) });
    return problem(c, new InstallerError({ code: "INTERNAL", detail: `The installer failed to answer; the log has request id ${c.get("requestId")}.` }));
  });
  return app;
}

/** The OpenAPI 3.1 document, generated from every route definition (served at /openapi.json, printed by `installer openapi`). */
export function openApiDocument(version: string) {
  const app = new OpenAPIHono<AppEnv>().openapiRoutes(ROUTES);
  app.openAPIRegistry.registerComponent("securitySchemes", "installCode", {
    type: "http",
    scheme: "bearer",
    description: "The install code from the installer's banner (`node installer.js code`). A bare code without `Bearer ` is accepted too.",
  });
  return app.getOpenAPI31Document({ ...OPENAPI_INFO, info: { ...OPENAPI_INFO.info, version } });
}
