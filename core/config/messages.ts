import type { HostDisk, HostFacts } from "../host/facts.ts";
import { capText } from "../common/cut-text.ts";
import { printableJson } from "../common/printable.ts";
import { MODE_TABLE, MODES, NODE_YAML_MODES } from "../common/model.ts";
import { formatPath, toSnake } from "./paths.ts";
import type { Names, Path } from "./schema.ts";

const MAX_SHOWN = 64;

/** Past this many errors of one kind (unknown keys, keys written twice), one error sums up the rest: a flood of keys is one mistake. */
export const MAX_SAME_ERRORS_SHOWN = 50;

/**
 * A value as a message shows it: quoted, cut short so no input floods a message, and printable (a C1 control or a
 * bidi override pasted into a value is written out, `\u202e`, in the installer's own sentence, never obeyed).
 */
export function quoted(value: string): string {
  return printableJson(value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}…` : value);
}

/** How much of a field's path is shown: a key pasted in may be as long as the file (the message quotes it cut, too). */
const MAX_FIELD_SHOWN_BYTES = 256;

/** A field's path (network.gateway, nodes[1].config.x) as a problem shows it: cut short, saying how much, when a key in it is huge. */
export function shownField(field: string): string {
  return capText(field, MAX_FIELD_SHOWN_BYTES).text;
}

/** A value as a message shows it, unquoted when it is a short plain token (an address, a path). */
export function shown(value: string): string {
  return /^[\w.:/%@+-]{1,64}$/.test(value) ? value : quoted(value);
}

/** Optimal string alignment distance: edits, with a swap of two neighbours counting as one. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j += 1) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

// Case and separators do not count: floatingIpCidrs, floating_ip_cidrs and Floating-IP-CIDRs are one name.
function normalized(name: string): string {
  return name.toLowerCase().replace(/[-_\s]/g, "");
}

function allowedDistance(length: number): number {
  return length <= 4 ? 1 : length <= 8 ? 2 : 3;
}

/** The candidate closest to `name`, when close enough to be a likely typo. */
export function nearest<T>(name: string, candidates: readonly T[], nameOf: (candidate: T) => string): T | undefined {
  const wanted = normalized(name);
  if (wanted.length === 0 || wanted.length > 64) return undefined;
  let best: { candidate: T; distance: number } | undefined;
  for (const candidate of candidates) {
    const other = normalized(nameOf(candidate));
    const limit = allowedDistance(Math.max(wanted.length, other.length));
    if (Math.abs(other.length - wanted.length) > limit) continue;
    const distance = editDistance(wanted, other);
    if (distance <= limit && (!best || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

export const draftNames: Names = {
  field: formatPath,
  mode: (mode) => mode,
  modes: MODES,
  objectWord: "an object",
};

export function toNodeYamlPath(path: Path): Path {
  return path.map((segment) => (typeof segment === "string" ? toSnake(segment) : segment));
}

export const nodeYamlNames: Names = {
  field: (path) => formatPath(toNodeYamlPath(path)),
  mode: (mode) => MODE_TABLE[mode].nodeYamlMode,
  modes: NODE_YAML_MODES,
  objectWord: "a mapping",
};

export function interfaceList(host: HostFacts): string {
  if (host.interfaces.length === 0) return "this host reports no network interfaces";
  const names = host.interfaces.map((i) => (i.addresses.length > 0 ? `${i.name} (${i.addresses.join(", ")})` : i.name));
  return `interfaces on this host: ${names.join(", ")}`;
}

export function unusedDisks(host: HostFacts): HostDisk[] {
  return host.disks.filter((disk) => !disk.inUse);
}

/** A disk as a hint shows it: its kernel path and the stable names a draft may use instead. */
export function described(disk: HostDisk): string {
  const names = [
    ...(disk.byId?.[0] ? [disk.byId[0]] : []),
    ...(disk.wwn ? [`WWN ${disk.wwn}`] : []),
    ...(disk.serial ? [`serial ${disk.serial}`] : []),
  ];
  return names.length > 0 ? `${disk.path} (${names.join(", ")})` : disk.path;
}

export function unusedDiskList(host: HostFacts): string {
  const unused = unusedDisks(host);
  return unused.length > 0 ? `unused disks on this host: ${unused.map(described).join("; ")}` : "this host has no unused disk";
}

export function diskList(host: HostFacts): string {
  if (host.disks.length === 0) return "this host reports no disks";
  const disks = host.disks.map((d) => (d.inUse ? `${d.path} (in use${d.usage ? `: ${d.usage}` : ""})` : described(d)));
  return `disks on this host: ${disks.join("; ")}`;
}
