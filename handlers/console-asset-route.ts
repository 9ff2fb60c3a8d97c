import { createRoute, defineOpenAPIRoute, z } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import { publicProblems } from "./schemas/problem.ts";

/** The page may load only its own script and stylesheet and talk only to this installer. */
const PAGE_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

interface ConsoleAsset<P extends string> {
  path: P;
  operationId: string;
  summary: string;
  description: string;
  mediaType: "text/html" | "text/javascript" | "text/css";
  what: string;
  body: string;
}

/** The console's page and assets: static text, no install code, the console's own headers. */
export function consoleAssetRoute<P extends string>(asset: ConsoleAsset<P>) {
  const route = createRoute({
    method: "get",
    path: asset.path,
    tags: ["Service"],
    operationId: asset.operationId,
    summary: asset.summary,
    description: asset.description,
    security: [],
    responses: {
      200: { description: asset.what, content: { [asset.mediaType]: { schema: z.string() } } },
      ...publicProblems,
    },
  });
  const headers = { "Content-Type": `${asset.mediaType}; charset=utf-8`, "Cache-Control": "no-cache", "Content-Security-Policy": PAGE_POLICY };
  return defineOpenAPIRoute<typeof route, AppEnv>({
    route,
    handler: (c) => c.body(asset.body, 200, headers) as never,
  });
}
