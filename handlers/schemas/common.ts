import { z } from "@hono/zod-openapi";
import { MODES, PHASES } from "../../core/common/model.ts";

export const security = [{ installCode: [] }];

export const PhaseSchema = z.enum(PHASES).meta({
  id: "Phase",
  description: "configuring until an install starts; installing while one runs; done after one succeeded; failed after the latest one failed.",
});

/** Seed 000's words for `mode`, as its page shows them (the stray comma before ")" included). */
export const MODE_DESCRIPTION =
  "How this node is installed: the first answer of stage 2. Each mode is a deployment profile of the release model and the node's part in it.\n\n" +
  "- single-node: one node runs everything (profile single-node; node.yaml mode: single-node).\n" +
  "- hyperconverged-init: the first node of a hyperconverged cluster, the one that founds it (\"HA init\"; node.yaml mode: ha-init).\n" +
  "- hyperconverged-join: a node that joins a hyperconverged cluster (\"HA join\"; node.yaml mode: join).\n" +
  "- disaggregated-control-plane: a control-plane-only node that compute and storage nodes join later (profile disaggregated, a preview whose design is open,).\n\n" +
  "GET /v1/installer/options says which are available; the others are refused at mode, with the reason.";

export const ModeSchema = z.enum(MODES).meta({ id: "InstallMode", description: MODE_DESCRIPTION });
