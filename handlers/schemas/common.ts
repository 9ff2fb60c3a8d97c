import { z } from "@hono/zod-openapi";
import { PHASES } from "../../core/model.ts";

export const security = [{ installCode: [] }];

export const PhaseSchema = z.enum(PHASES).meta({
  id: "Phase",
  description: "configuring until an install starts; installing while one runs; done after one succeeded; failed after the latest one failed.",
});
