import { createRoute, defineOpenAPIRoute, z } from "@hono/zod-openapi";
import { InstallerError } from "../core/common/errors.ts";
import type { AppEnv } from "./env.ts";
import { problemResponse, publicProblems } from "./schemas/problem.ts";

const TlsSchema = z
  .object({
    sha256: z.string().meta({ description: "SHA-256 of the certificate, uppercase colon-separated hex, as the banner prints it.", example: "9F:86:D0:81:…" }),
    notAfter: z.iso.datetime().meta({ description: "When the certificate expires." }),
  })
  .meta({ id: "Tls" });

const route = createRoute({
  method: "get",
  path: "/tls",
  tags: ["Service"],
  operationId: "getTls",
  summary: "The certificate this API serves, without the install code.",
  description:
    "Its SHA-256 fingerprint and expiry, to compare with the installer's banner before typing the install code into a page, or to pin. No install code needed: every TLS handshake discloses the certificate anyway.",
  security: [],
  responses: {
    200: { description: "The served certificate.", content: { "application/json": { schema: TlsSchema } } },
    ...publicProblems,
    404: problemResponse(404, "The app serves no certificate of its own (built in process, without TLS)."),
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({
  route,
  handler: (c) => {
    const tls = c.get("services").tls();
    if (!tls) throw new InstallerError({ code: "NOT_FOUND", detail: "This app serves no certificate of its own: it was built in process, without TLS." });
    return c.json(tls, 200);
  },
});
