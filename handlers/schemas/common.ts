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

/**
 * A step's or a profile's name, where the seeds show a plain string: a later installer may add one, so a client takes
 * a name it does not know (and shows it as it is) rather than refusing the answer. The pattern keeps it a name; the
 * names this installer has are its examples.
 */
export const nameSchema = (known: readonly string[], description?: string) =>
  z.string().regex(/^[a-z][a-z0-9-]{0,63}$/).meta({ ...(description === undefined ? {} : { description }), examples: [...known] });

/** A problem's or a blocker's code, where the seeds show a plain string ("Stable identifier, e.g. PAYLOAD_NOT_LOADED"). */
export const CodeSchema = z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/);

export const ModeSchema = z.enum(MODES).meta({ id: "InstallMode", description: MODE_DESCRIPTION });
