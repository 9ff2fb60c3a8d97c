import { createRoute, defineOpenAPIRoute, z } from "@hono/zod-openapi";
import { webStreamOf } from "../core/http/web-stream.ts";
import type { AppEnv } from "./env.ts";
import { answersHead } from "./head.ts";
import { authProblems } from "./schemas/problem.ts";
import { security } from "./schemas/common.ts";

const route = createRoute({
  method: "get",
  path: "/v1/installer/support-bundle",
  tags: ["Installer"],
  operationId: "getSupportBundle",
  summary: "One .tar.gz that tells this node's whole story, with no secret in it.",
  description:
    "manifest.json (versions, when and how it was made, host name, phase, every file with its size and SHA-256, what was left out and why), " +
    "status.json, the draft as node.yaml, each attempt's steps, verdict, report and events (NDJSON), host facts, payload verification, the last readiness checks, " +
    "the service's recent log, the notices of its last start and any store kept aside as corrupt. Every secret (install code, join token and its secret, " +
    "password hash, TLS private key) is replaced by a marker naming it. At most 10 MB: the oldest events of the oldest attempts are left out first, each cut " +
    "named in the manifest. Streamed while the service goes on answering; `node installer.js support-bundle --state-dir DIR` makes the same file with the service down.",
  security,
  responses: {
    200: {
      description: "The bundle; its file name (host name and UTC time) in Content-Disposition.",
      headers: z.object({ "Content-Disposition": z.string().meta({ example: 'attachment; filename="stratum-support-node-01-20261204T142800Z.tar.gz"' }) }),
      content: { "application/gzip": { schema: z.string().meta({ format: "binary" }) } },
    },
    ...authProblems,
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({
  route,
  handler: async (c) => {
    const services = c.get("services");
    const bundle = await services.supportBundle();
    const { log } = services;
    const head = answersHead(c.req.raw);
    bundle.manifest.catch((err: Error) => {
      // Its own failure is the error the stream ended with. Else its reader went away (the client hung up, or a HEAD's
      // body was cancelled unsent) and the stream was ended under it: nothing failed.
      if (bundle.stream.errored === err) log.warn("support bundle not finished", { error: err.message });
      else if (!head) log.info("support bundle not sent whole: the client went away");
    });
    return c.body(webStreamOf(bundle.stream), 200, {
      "Content-Type": "application/gzip",
      "Content-Disposition": `attachment; filename="${bundle.name}"`,
      "Cache-Control": "no-store",
    }) as never;
  },
});
