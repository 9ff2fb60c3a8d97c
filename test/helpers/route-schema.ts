import assert from "node:assert/strict";
import { z, type RouteConfig } from "@hono/zod-openapi";
import type { Reply } from "./installer.ts";

type Responses<R extends RouteConfig> = R["responses"];

/** What the route documents for that status: the zod schema's output for its (first) media type. */
type Answer<R extends RouteConfig, S extends keyof Responses<R>> = Responses<R>[S] extends { content: infer C }
  ? C[keyof C] extends { schema: infer Z }
    ? Z extends z.ZodType
      ? z.output<Z>
      : unknown
    : unknown
  : unknown;

/** A response as createRoute takes it (the routes name none by $ref). */
interface Documented {
  headers?: unknown;
  content?: Record<string, { schema?: unknown }>;
}

/** A route module's default export (defineOpenAPIRoute) or its route. */
type RouteOf<R extends RouteConfig> = R | { route: R };

const routeOf = <R extends RouteConfig>(of: RouteOf<R>): R => ("route" in of && typeof of.route === "object" ? of.route : (of as R));

/**
 * The reply is an answer the route documents: its status is one of the route's responses, its
 * Content-Type one of that response's media types, every header the response names is sent and
 * parses with its schema, and its body parses with that media type's zod schema with nothing
 * left over (no member the schema does not name). Returns the parsed body.
 */
export function assertAnswers<R extends RouteConfig, S extends keyof Responses<R> & number>(of: RouteOf<R>, status: S, reply: Reply): Answer<R, S> {
  const route = routeOf(of);
  const name = `${route.method.toUpperCase()} ${route.path}`;
  assert.equal(reply.status, status, `${name} answered ${reply.status}, not ${status}: ${reply.text.slice(0, 500)}`);
  const documented = route.responses[status] as Documented | undefined;
  assert.ok(documented && !("$ref" in documented), `${name} does not document a ${status} answer`);

  const headers = documented.headers instanceof z.ZodObject ? documented.headers.shape : {};
  for (const [header, schema] of Object.entries(headers as Record<string, z.ZodType>)) {
    const sent = reply.headers[header.toLowerCase()];
    if (sent === undefined) {
      assert.ok(schema.safeParse(undefined).success, `${name} ${status}: the documented header ${header} is missing`);
      continue;
    }
    const value = schema instanceof z.ZodNumber ? Number(sent) : sent;
    const parsed = schema.safeParse(value);
    assert.ok(parsed.success, `${name} ${status}: header ${header}: ${JSON.stringify(sent)} is not as documented: ${parsed.error?.message}`);
  }

  const content = documented.content ?? {};
  const types = Object.keys(content);
  if (types.length === 0) {
    assert.equal(reply.text, "", `${name} ${status} documents no body`);
    return undefined as Answer<R, S>;
  }
  const sentType = String(reply.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  assert.ok(types.includes(sentType), `${name} ${status}: Content-Type ${JSON.stringify(reply.headers["content-type"])} is not one it documents (${types.join(", ")})`);
  const schema = content[sentType]!.schema;
  assert.ok(schema instanceof z.ZodType, `${name} ${status} ${sentType}: the documented schema is not a zod schema, so it cannot be checked here`);

  let body: unknown = reply.text;
  if (/[/+]json$/.test(sentType)) {
    try {
      body = JSON.parse(reply.text);
    } catch (error) {
      assert.fail(`${name} ${status}: the ${sentType} body does not parse: ${(error as Error).message}: ${reply.text.slice(0, 300)}`);
    }
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    assert.fail(`${name} ${status}: the body is not the documented ${sentType} schema:\n${z.prettifyError(parsed.error)}\nbody: ${reply.text.slice(0, 1000)}`);
  }
  assert.deepEqual(parsed.data, body, `${name} ${status}: the body has members the documented schema does not name`);
  return parsed.data as Answer<R, S>;
}
