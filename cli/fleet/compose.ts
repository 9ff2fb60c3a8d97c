import type { Draft } from "../../core/config/index.ts";
import { isPlainObject, valueAt } from "../../core/config/paths.ts";
import type { Path } from "../../core/config/schema.ts";
import type { Plan, PlanNode } from "./plan-schema.ts";

/** The install mode each role of the plan installs. */
export const MODE = { init: "hyperconverged-init", join: "hyperconverged-join" } as const;

/** Objects merge key by key; a list or a value in `over` replaces the one in `base`. */
function merge(base: unknown, over: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(over)) return over === undefined ? base : over;
  const keys = new Set([...Object.keys(base), ...Object.keys(over)]);
  return Object.fromEntries([...keys].map((key) => [key, merge(base[key], over[key])]));
}

/**
 * A node's structured draft (SPEC §10): common, then the node's config; hostname from its name, mode
 * from its role, network.vip and the cluster's fields from the cluster section. A join's token comes
 * from the init node once it is installed.
 */
export function composeDraft(plan: Plan, node: PlanNode, joinToken?: string): Draft {
  const merged = merge(plan.cluster.common ?? {}, node.config ?? {}) as Omit<Draft, "mode" | "hostname" | "cluster">;
  const { name, vip } = plan.cluster;
  const cluster: Draft["cluster"] =
    node.role === "init" ? { name } : { name, joinAddress: plan.cluster.joinAddress ?? vip, ...(joinToken === undefined ? {} : { joinToken }) };
  return { mode: MODE[node.role], hostname: node.name, ...merged, network: { ...merged.network, vip }, cluster };
}

/** "network.floatingIpCidrs[1]" → ["network", "floatingIpCidrs", 1]. */
export function parseFieldPath(field: string): Path {
  return [...field.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] === undefined ? m[1]! : Number(m[2])));
}

/** Where in the plan a field of node `index`'s draft comes from: the node's config, the common part, or the cluster section. */
export function planPathOf(plan: Plan, index: number, field: Path): Path {
  const node: Path = ["nodes", index];
  const [first, second] = field;
  if (first === "hostname") return [...node, "name"];
  if (first === "mode") return [...node, "role"];
  if (first === "network" && second === "vip") return ["cluster", "vip"];
  if (first === "cluster") {
    if (second === "name") return ["cluster", "name"];
    if (second === "joinAddress") return ["cluster", plan.cluster.joinAddress === undefined ? "vip" : "joinAddress"];
    return node;
  }
  const config = plan.nodes[index]?.config;
  for (let length = field.length; length > 0; length -= 1) {
    const prefix = field.slice(0, length);
    if (valueAt(config, prefix) !== undefined) return [...node, "config", ...field];
    if (valueAt(plan.cluster.common, prefix) !== undefined) return ["cluster", "common", ...field];
  }
  return [...node, "config", ...field];
}
