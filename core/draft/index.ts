/** The draft's public face: the service that keeps it, its analysis, and a draft body read from request text. */
export type { DraftAnalysis, DraftBody } from "./analysis.ts";
export { parseJsonBody, yamlBody } from "./body.ts";
export { createDraftService, type DraftService } from "./service.ts";
