import { normalizeInstallCode } from "../../core/access/install-code.ts";
import { type Draft, validateDraft } from "../../core/config/index.ts";
import { shown } from "../../core/config/messages.ts";
import { type Cidr, parseCidr, subnetText } from "../../core/config/net.ts";
import type { Path } from "../../core/config/schema.ts";
import type { HostFacts } from "../../core/host/facts.ts";
import { BUILT_IN_RELEASE } from "../../core/payload/release-model.ts";
import { parseFieldPath, planPathOf } from "./compose.ts";
import type { NodeAccess } from "./node-access.ts";
import type { Plan } from "./plan-schema.ts";
import { fieldRule } from "./plan-rules.ts";
import type { PlanProblem } from "./plan-yaml.ts";
import type { FieldError } from "../../core/state/records.ts";

/** Fields whose rules ask the host: offline they are left to the node, which checks them with its own inventory once connected. */
const HOST_FIELDS = [/^mode$/, /^network\.interface$/, /^storage\.osdDevices/];
const isHostField = (field: string) => HOST_FIELDS.some((pattern) => pattern.test(field));

/** A host that has what the draft names, so that offline only the rules that do not depend on the host can fail. */
function assumedHost(draft: Draft): HostFacts {
  const name = draft.network?.interface;
  const devices = (draft.storage?.osdDevices ?? []).filter((d): d is string => typeof d === "string");
  return {
    hostname: "",
    interfaces: name === undefined ? [] : [{ name, mac: "", up: true, addresses: [] }],
    disks: devices.map((path) => ({ name: path.split("/").pop() ?? path, path, sizeBytes: 0, model: "", rotational: false, inUse: false })),
    memoryBytes: 0,
    cpuCount: 0,
  };
}

/** The service's validator on a node's composed draft, offline: the host's questions and the join token (not issued yet) left out. */
export function offlineFieldErrors(draft: Draft): FieldError[] {
  return validateDraft(draft, { host: assumedHost(draft), release: BUILT_IN_RELEASE })
    .filter((e) => e.field !== "mode" && !e.field.startsWith("cluster.joinToken"))
    .map(({ hint, ...e }) => (isHostField(e.field) || hint === undefined ? e : { ...e, hint }));
}

/**
 * A node's field errors at the plan paths they come from. An error of the common part shows once,
 * naming the nodes it concerns when not all of them.
 */
export function fieldProblems(plan: Plan, errors: ReadonlyMap<number, readonly FieldError[]>): PlanProblem[] {
  const grouped = new Map<string, { problem: PlanProblem; nodes: string[] }>();
  for (const [index, fieldErrors] of errors) {
    for (const error of fieldErrors) {
      const path = planPathOf(plan, index, parseFieldPath(error.field));
      const key = JSON.stringify([path, error.message, error.hint]);
      const entry = grouped.get(key) ?? { problem: { rule: fieldRule(error.field), path, message: error.message, ...(error.hint ? { hint: error.hint } : {}) }, nodes: [] };
      entry.nodes.push(shown(plan.nodes[index]!.name));
      grouped.set(key, entry);
    }
  }
  return [...grouped.values()].map(({ problem, nodes }) =>
    problem.path[0] === "nodes" || nodes.length === plan.nodes.length ? problem : { ...problem, message: `${problem.message} (for ${nodes.join(", ")})` },
  );
}

interface Seen<T> {
  index: number;
  value: T;
}

function nodeLabel(plan: Plan, index: number): string {
  return `nodes[${index}] (${shown(plan.nodes[index]!.name)})`;
}

/** Each node after the first whose value differs from the first one's. */
function differing<T>(values: Seen<T>[], same: (a: T, b: T) => boolean): Array<{ first: Seen<T>; other: Seen<T> }> {
  const [first, ...rest] = values;
  return first ? rest.filter((other) => !same(first.value, other.value)).map((other) => ({ first, other })) : [];
}

function parsedAddresses(drafts: ReadonlyMap<number, Draft>): Seen<Cidr>[] {
  return [...drafts].flatMap(([index, draft]) => {
    const parsed = parseCidr(draft.network?.address ?? "");
    return parsed.ok ? [{ index, value: parsed.value }] : [];
  });
}

/** Over every node that says role: init, well-shaped or not: one that lacks its installer, fingerprint or code has those named where they go. */
function roleProblems(plan: Plan): PlanProblem[] {
  const inits = plan.nodes.flatMap((node, i) => ((node as Partial<typeof node> | null)?.role === "init" ? [i] : []));
  if (inits.length === 0) return [{ rule: "init-missing", path: ["nodes"], message: "no node has role: init; exactly one node founds the cluster, the others join", hint: "set role: init on one node" }];
  return inits.slice(1).map((i) => ({
    rule: "init-twice",
    path: ["nodes", i, "role"],
    message: `${nodeLabel(plan, i)} is a second init (${nodeLabel(plan, inits[0]!)} is one); exactly one node founds the cluster, the others join`,
  }));
}

const origin = (url: string) => URL.canParse(url) ? new URL(url).origin : url;

/** Each item after the first of its key, with that first one: one pass, not every item against every other (a rack has thousands). */
function repeats<T>(items: readonly T[], key: (item: T) => string): Array<{ item: T; first: T }> {
  const firsts = new Map<string, T>();
  return items.flatMap((item) => {
    const k = key(item);
    const first = firsts.get(k);
    if (first === undefined) firsts.set(k, item);
    return first === undefined ? [] : [{ item, first }];
  });
}

function uniqueProblems(plan: Plan, indexes: number[], key: "name" | "installer", what: string): PlanProblem[] {
  const rule = key === "name" ? "name-unique" : "installer-unique";
  const value = (i: number) => (key === "installer" ? origin(plan.nodes[i]!.installer) : plan.nodes[i]!.name);
  return repeats(indexes, value).map(({ item: i, first }) => ({ rule, path: ["nodes", i, key], message: `${shown(plan.nodes[i]![key])} is also ${nodeLabel(plan, first)}'s ${what}` }));
}

/**
 * Two nodes with one pinned certificate and one install code (as the installer reads it) are one installer under two
 * addresses: the fleet would install it once and count it twice. (A certificate alone may be shared: an operator's.)
 * `accesses` by node index, undefined where a node's access did not resolve.
 */
export function sameInstallerProblems(plan: Plan, accesses: ReadonlyArray<NodeAccess | undefined>): PlanProblem[] {
  const resolved = accesses.flatMap((access, index) => (access ? [{ index, key: `${access.pin} ${normalizeInstallCode(access.code)}` }] : []));
  return repeats(resolved, (r) => r.key).map(({ item, first }) => ({
    rule: "installer-unique",
    path: ["nodes", item.index, "code"],
    message: `${shown(plan.nodes[item.index]!.name)} has ${nodeLabel(plan, first.index)}'s pinned certificate and install code: one installer listed twice (under another address?); each node has its own code`,
  }));
}

function networkProblems(plan: Plan, drafts: ReadonlyMap<number, Draft>): PlanProblem[] {
  const at = (index: number, field: string): Path => planPathOf(plan, index, parseFieldPath(field));
  const addresses = parsedAddresses(drafts);
  const problems: PlanProblem[] = [];
  for (const { item, first } of repeats(addresses, (a) => `${a.value.ip.family} ${a.value.ip.value}`)) {
    problems.push({ rule: "address-unique", path: at(item.index, "network.address"), message: `${drafts.get(item.index)!.network!.address} is also ${nodeLabel(plan, first.index)}'s address` });
  }
  for (const { first, other } of differing(addresses, (a, b) => subnetText(a) === subnetText(b))) {
    problems.push({
      rule: "subnet",
      path: at(other.index, "network.address"),
      message: `${drafts.get(other.index)!.network!.address} is in ${subnetText(other.value)}, but ${nodeLabel(plan, first.index)} is in ${subnetText(first.value)}: every node has its address in one management subnet`,
    });
  }
  const gateways = [...drafts].flatMap(([index, d]) => (d.network?.gateway === undefined ? [] : [{ index, value: d.network.gateway }]));
  for (const { first, other } of differing(gateways, (a, b) => a === b)) {
    problems.push({ rule: "gateway", path: at(other.index, "network.gateway"), message: `${shown(other.value)} differs from ${nodeLabel(plan, first.index)}'s gateway ${shown(first.value)}: every node has the same gateway` });
  }
  const ranges = [...drafts].map(([index, d]) => ({ index, value: [...(d.network?.floatingIpCidrs ?? [])].sort() }));
  for (const { first, other } of differing(ranges, (a, b) => a.join() === b.join())) {
    const shown = (list: string[]) => (list.length > 0 ? list.join(", ") : "none");
    problems.push({
      rule: "floating-ranges",
      path: at(other.index, "network.floatingIpCidrs"),
      message: `${nodeLabel(plan, other.index)} has floating ranges ${shown(other.value)}, ${nodeLabel(plan, first.index)} ${shown(first.value)}: every node has the same floating ranges`,
      hint: "set them once in cluster.common.network.floatingIpCidrs",
    });
  }
  return problems;
}

/** SPEC §10's rules across the well-shaped nodes (`indexes`), and over their drafts where the cluster section lets them be composed. */
export function crossNodeProblems(plan: Plan, indexes: number[], drafts: ReadonlyMap<number, Draft>): PlanProblem[] {
  return [...roleProblems(plan), ...uniqueProblems(plan, indexes, "name", "name"), ...uniqueProblems(plan, indexes, "installer", "installer"), ...networkProblems(plan, drafts)];
}

