import type { HttpBindings } from "@hono/node-server";
import type { RequestIdVariables } from "hono/request-id";
import type { Origin } from "../core/common/log.ts";
import type { Services } from "../core/service/services.ts";

export type AppEnv = {
  Bindings: HttpBindings;
  Variables: RequestIdVariables & { services: Services; openapi: () => unknown; origin: Origin };
};
