import type { OpenAPIRoute, RouteConfig } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import getHealthz from "./get-healthz.ts";
import getStatus from "./get-status.ts";

export type RouteDefinition = OpenAPIRoute<RouteConfig, AppEnv>;

/**
 * An endpoint: its method and path are known at start, its zod schemas and handler are built
 * when it is first asked for (its module is reached through `import()`, which esbuild turns into
 * a lazy initialiser). `built` is set for the endpoints asked for at start.
 */
export interface RouteEntry {
  method: string;
  path: string;
  load: () => Promise<RouteDefinition>;
  built?: RouteDefinition;
}

// Each module's definition is typed by its own route; the registry only needs the common shape.
const atStart = (definition: object): RouteEntry => {
  const built = definition as RouteDefinition;
  return { method: built.route.method, path: built.route.path, load: async () => built, built };
};
const onFirstHit = (method: string, path: string, load: () => Promise<{ default: object }>): RouteEntry => ({
  method,
  path,
  load: async () => (await load()).default as RouteDefinition,
});

/** Every endpoint of the API, in the order of the OpenAPI document. */
export const ROUTES: readonly RouteEntry[] = [
  atStart(getHealthz),
  onFirstHit("get", "/openapi.json", () => import("./get-openapi.ts")),
  onFirstHit("get", "/schemas/node.yaml.json", () => import("./get-schemas-node-yaml.ts")),
  onFirstHit("get", "/tls", () => import("./get-tls.ts")),
  onFirstHit("get", "/", () => import("./get-console.ts")),
  onFirstHit("get", "/console.js", () => import("./get-console-script.ts")),
  onFirstHit("get", "/console.css", () => import("./get-console-styles.ts")),
  atStart(getStatus),
  onFirstHit("get", "/v1/installer/options", () => import("./get-options.ts")),
  onFirstHit("get", "/v1/installer/config", () => import("./get-config.ts")),
  onFirstHit("put", "/v1/installer/config", () => import("./put-config.ts")),
  onFirstHit("patch", "/v1/installer/config", () => import("./patch-config.ts")),
  onFirstHit("post", "/v1/installer/config/validate", () => import("./post-config-validate.ts")),
  onFirstHit("get", "/v1/installer/config/node.yaml", () => import("./get-config-node-yaml.ts")),
  onFirstHit("get", "/v1/installer/config/review", () => import("./get-config-review.ts")),
  onFirstHit("put", "/v1/installer/config/node.yaml", () => import("./put-config-node-yaml.ts")),
  onFirstHit("get", "/v1/installer/config/schema", () => import("./get-config-schema.ts")),
  onFirstHit("post", "/v1/installer/install", () => import("./post-install.ts")),
  onFirstHit("post", "/v1/installer/install/recheck-readiness", () => import("./post-install-recheck-readiness.ts")),
  onFirstHit("get", "/v1/installer/install/events", () => import("./get-install-events.ts")),
  onFirstHit("get", "/v1/installer/install/verdict", () => import("./get-install-verdict.ts")),
  onFirstHit("get", "/v1/installer/install/report", () => import("./get-install-report.ts")),
  onFirstHit("get", "/v1/installer/install/attempts", () => import("./get-install-attempts.ts")),
  onFirstHit("post", "/v1/installer/cluster/join-check", () => import("./post-cluster-join-check.ts")),
  onFirstHit("get", "/v1/installer/cluster/join-token", () => import("./get-cluster-join-token.ts")),
];
