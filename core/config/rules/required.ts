import { MODE_TABLE, type Mode } from "../../common/model.ts";
import { interfaceList, unusedDiskList } from "../messages.ts";
import { modeOptions } from "../modes.ts";
import { valueAt } from "../paths.ts";
import type { Draft, Path, PathError, Rule, RuleContext } from "../schema.ts";

interface Requirement {
  path: Path;
  what: string;
  hint?: (draft: Draft, ctx: RuleContext) => string | undefined;
}

function currentAddresses(draft: Draft, ctx: RuleContext): string | undefined {
  const found = ctx.host.interfaces.find((i) => i.name === draft.network?.interface);
  return found && found.addresses.length > 0 ? `${found.name} has ${found.addresses.join(", ")} now` : undefined;
}

// These tables, LOGIN and needsDisks are also the node.yaml JSON Schema's required fields (../json-schema.ts).
export const FOR_EVERY_MODE: Requirement[] = [
  { path: ["hostname"], what: "the node's name, e.g. node-01" },
  { path: ["network", "interface"], what: "the network interface the node is managed through", hint: (_, ctx) => interfaceList(ctx.host) },
  { path: ["network", "address"], what: "the node's address with its prefix, e.g. 10.20.0.11/24", hint: currentAddresses },
  { path: ["network", "gateway"], what: "the default gateway's IP address, in the management subnet" },
];

export const FOR_MODE: Partial<Record<Mode, Requirement[]>> = {
  "hyperconverged-init": [
    { path: ["network", "vip"], what: "the cluster's virtual IP address, in the management subnet" },
    { path: ["cluster", "name"], what: "the name of the cluster this node founds" },
  ],
  "hyperconverged-join": [
    { path: ["cluster", "joinAddress"], what: "the address of a node already in the cluster" },
    { path: ["cluster", "joinToken"], what: "the token the cluster issued for this node" },
  ],
};

/** A node must be reachable: at least one SSH key, or a password hash. */
export const LOGIN = { keys: ["admin", "sshAuthorizedKeys"], hash: ["admin", "passwordHash"] } as const satisfies Record<string, Path>;

/** Ceph keeps the cluster's data on these: a hyperconverged node needs at least one. */
export const DISKS: Path = ["storage", "osdDevices"];

export function needsDisks(mode: Mode): boolean {
  return MODE_TABLE[mode].profile === "hyperconverged";
}

function missing(requirements: Requirement[], mode: Mode | undefined, draft: Draft, ctx: RuleContext): PathError[] {
  const forMode = mode ? ` for mode ${ctx.names.mode(mode)}` : "";
  return requirements
    .filter(({ path }) => valueAt(draft, path) === undefined)
    .map(({ path, what, hint }) => ({ path, message: `${ctx.names.field(path)} is required${forMode}: ${what}`, hint: hint?.(draft, ctx) }));
}

function modeMissing(draft: Draft, ctx: RuleContext): PathError[] {
  if (draft.mode !== undefined) return [];
  return [{ path: ["mode"], message: `mode is required: one of ${ctx.names.modes.join(", ")}` }];
}

function loginMissing(draft: Draft, { names }: RuleContext): PathError[] {
  if ((draft.admin?.sshAuthorizedKeys?.length ?? 0) > 0 || draft.admin?.passwordHash !== undefined) return [];
  const keys = names.field(LOGIN.keys);
  const hash = names.field(LOGIN.hash);
  return [{ path: ["admin"], message: `admin needs a way to log in: set ${keys} (at least one key) or ${hash}, or nobody can log in to the node` }];
}

function disksMissing(draft: Draft, ctx: RuleContext): PathError[] {
  const mode = draft.mode;
  if (!mode || !needsDisks(mode) || (draft.storage?.osdDevices?.length ?? 0) > 0) return [];
  return [
    {
      path: DISKS,
      message: `${ctx.names.field(DISKS)} needs at least one disk for mode ${ctx.names.mode(mode)}: Ceph keeps the cluster's data there`,
      hint: unusedDiskList(ctx.host),
    },
  ];
}

export const requiredFields: Rule = (draft, ctx) => [
  ...modeMissing(draft, ctx),
  ...missing(FOR_EVERY_MODE, undefined, draft, ctx),
  ...(draft.mode ? missing(FOR_MODE[draft.mode] ?? [], draft.mode, draft, ctx) : []),
  ...loginMissing(draft, ctx),
  ...disksMissing(draft, ctx),
];

export const modeAvailable: Rule = (draft, ctx) => {
  const option = modeOptions(ctx).find((o) => o.mode === draft.mode);
  if (!option || option.available) return [];
  const others = modeOptions(ctx).filter((o) => o.available).map((o) => ctx.names.mode(o.mode));
  return [
    {
      path: ["mode"],
      message: `mode ${ctx.names.mode(option.mode)} is not available: ${option.reason}`,
      hint: others.length > 0 ? `available on this host: ${others.join(", ")}` : undefined,
    },
  ];
};
