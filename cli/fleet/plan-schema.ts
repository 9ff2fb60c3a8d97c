import { z } from "zod";
import { DraftSchema } from "../../core/config/index.ts";

/**
 * What a node's `config` (and the cluster's `common`) may set: a structured draft without the keys the
 * fleet sets itself (mode from role, hostname from name, network.vip and cluster from the cluster section).
 */
const NodeConfigSchema = DraftSchema.omit({ mode: true, hostname: true, cluster: true }).extend({
  network: DraftSchema.shape.network.unwrap().omit({ vip: true }).optional(),
});

const ROLES = ["init", "join"] as const;
export type Role = (typeof ROLES)[number];

const text = z.string().min(1);

export const PlanSchema = z.strictObject({
  cluster: z.strictObject({
    name: text,
    vip: text,
    joinAddress: text.optional(),
    common: NodeConfigSchema.optional(),
  }),
  nodes: z
    .array(
      z.strictObject({
        name: text,
        installer: text,
        fingerprint: text,
        code: text,
        role: z.enum(ROLES),
        config: NodeConfigSchema.optional(),
      }),
    )
    .min(1),
});

export type Plan = z.infer<typeof PlanSchema>;
export type PlanNode = Plan["nodes"][number];

/** Keys the fleet writes itself, and where the plan says them instead. */
export const FLEET_OWNED: Record<string, string> = {
  mode: "the node's role decides it (init: hyperconverged-init, join: hyperconverged-join)",
  hostname: "the node's name is its hostname",
  vip: "cluster.vip is every node's network.vip",
  cluster: "the plan's cluster section sets it (name, joinAddress; the join token comes from the init node)",
};

/** What each required key of the plan is, for the message that says it is missing. */
export const REQUIRED: Record<string, string> = {
  cluster: "the cluster section (name, vip, common)",
  nodes: "the list of nodes",
  name: "a name",
  vip: "the cluster's virtual IP address",
  installer: "the node installer's URL, e.g. https://10.20.0.11:9443",
  fingerprint: "the TLS SHA-256 its installer's banner printed",
  code: "its install code: env:VAR, file:PATH or the code itself",
  role: "init or join",
};
