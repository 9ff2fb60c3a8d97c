import { OpenAPIHono } from "@hono/zod-openapi";
import { InstallerError } from "../core/common/errors.ts";
import type { Services } from "../core/service/services.ts";
import { createAdmission } from "./admission.ts";
import type { AppEnv } from "./env.ts";
import { getForHead } from "./head.ts";
import { ROUTES } from "./index.ts";
import { invalidRequestFromZod, problem, toInstallerError } from "./problem.ts";

const OPENAPI_INFO = {
  openapi: "3.1.0",
  info: {
    title: "Stratum installer",
    description:
      "The stage-2 installer of a Stratum node: choose the install mode, fill and validate the draft config, run and follow install attempts. Every /v1/installer endpoint needs the install code shown in the installer's banner.",
    contact: { name: "Stratum installer maintainers" },
    license: { name: "Apache-2.0", identifier: "Apache-2.0" },
  },
  // The node's address, and the port its --listen gave (9443 unless told); a `description` here fails swagger-parser's 3.1 schema.
  servers: [{ url: "https://{node}:{port}", variables: { node: { default: "127.0.0.1" }, port: { default: "9443" } } }],
  tags: [
    { name: "Installer", description: "Where the install stands." },
    { name: "Config", description: "Install options and the draft config." },
    { name: "Install", description: "Install attempts: start, follow, verdict, report." },
    { name: "Cluster", description: "Joining a hyperconverged cluster: check a join before installing, and the token joining nodes need." },
    { name: "Service", description: "Liveness and the API description; no install code." },
  ],
};

export function createApp(services: Services) {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) return problem(c, invalidRequestFromZod(result.error, result.target));
    },
  });

  let document: unknown;
  const admission = createAdmission(services, () => (document ??= openApiDocument(services.version)));
  app.openapiRoutes(ROUTES.map((definition) => admission.mount(definition)));

  app.notFound(async (c) => {
    await admission.notFound(c);
    return problem(c, new InstallerError({ code: "NOT_FOUND", detail: `No endpoint ${c.req.method} ${c.req.path}. /openapi.json lists every route.` }));
  });
  app.onError((err, c) => {
    const known = toInstallerError(err);
    if (known?.code === "INSUFFICIENT_STORAGE") services.log.error("state dir write failed", { ...c.get("origin"), method: c.req.method, path: c.req.path, detail: known.detail });
    if (known) return problem(c, known);
    services.log.error("request failed", { ...c.get("origin"), method: c.req.method, path: c.req.path, error: String(err) });
    return problem(c, new InstallerError({ code: "INTERNAL", detail: `The installer failed to answer; the log has request id ${c.get("requestId")}.` }));
  });

  // Hono answers HEAD with the GET's headers and drops its body unread, so a stream (an attempt's SSE, the support
  // bundle) would wait for a reader forever, its follower and its files held. The GET's body is cancelled instead.
  // Any other request is passed on as it is: an answer Hono has at once stays synchronous (@hono/node-server's fast path).
  const fetch = app.fetch;
  const headOf = async (get: Response | Promise<Response>) => {
    const answer = await get;
    await answer.body?.cancel();
    return new Response(null, answer);
  };
  app.fetch = (request, ...rest) => (request.method === "HEAD" ? headOf(fetch(getForHead(request), ...rest)) : fetch(request, ...rest));
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
  app.openAPIRegistry.registerComponent("headers", "RequestId", {
    description: "This request's id, on every answer (a problem's requestId too): the service's log lines of the request carry it.",
    schema: { type: "string", pattern: "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$" },
  });
  const document = app.getOpenAPI31Document({ ...OPENAPI_INFO, info: { ...OPENAPI_INFO.info, version } });
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations) as Array<{ responses?: Record<string, { headers?: Record<string, unknown> }> }>) {
      for (const response of Object.values(operation.responses ?? {})) response.headers = { ...response.headers, "X-Request-Id": { $ref: "#/components/headers/RequestId" } };
    }
  }
  return document;
}
