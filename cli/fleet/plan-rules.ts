/**
 * The rules a plan is checked by, each with a stable id (test/fixtures/plan-rules.json is their table of
 * cases, run here and by the Ansible collection's filter). A PlanProblem names the rule that found it.
 */
export const PLAN_RULES = [
  "plan-file",
  "unknown-key",
  "fleet-owned",
  "required",
  "type",
  "one-of",
  "installer-url",
  "fingerprint",
  "code",
  "init-missing",
  "init-twice",
  "name-unique",
  "installer-unique",
  "address-unique",
  "subnet",
  "gateway",
  "floating-ranges",
  "vip",
  "join-address",
  "draft",
] as const;

export type PlanRule = (typeof PLAN_RULES)[number];

/** The rule of a node's field error from the service's validator: the cluster's own fields by name, the rest "draft". */
export function fieldRule(field: string): PlanRule {
  if (field === "network.vip") return "vip";
  if (field === "cluster.joinAddress") return "join-address";
  return "draft";
}
