import { type Document, isAlias, isMap, isScalar, isSeq, type Scalar, visit } from "yaml";
import { diskNamed, stablePath } from "../host/disk-names.ts";
import type { HostFacts } from "../host/facts.ts";
import { shown } from "./messages.ts";
import type { Draft, Names, PathError } from "./schema.ts";
import { parseYamlDocument, replaceScalars } from "./yaml.ts";

/** A disk name as node.yaml writes it: the disk's stable path, whatever name the draft gave it (/dev/sdb, a WWN, a serial). */
function stableName(name: string, host: HostFacts): string {
  const disk = diskNamed(host, name);
  return disk ? stablePath(disk) : name;
}

export function withStableDisks(draft: Draft, host: HostFacts): Draft {
  const devices = draft.storage?.osdDevices;
  if (!devices) return draft;
  return { ...draft, storage: { ...draft.storage, osdDevices: devices.map((name) => stableName(name, host)) } };
}

interface DiskItem {
  index: number;
  name: Scalar<string>;
  /** Reached through an alias, or anchored where an alias refers to it: renamed here, another use would change too. */
  shared: boolean;
}

/** node.yaml's storage.osd_devices items, aliases resolved, as toJS (and so the validator) reads them. */
function osdDeviceItems(doc: Document.Parsed): DiskItem[] {
  const aliased = new Set<unknown>();
  visit(doc, { Alias: (_, alias) => void aliased.add(alias.resolve(doc)) });
  const target = (node: unknown) => (isAlias(node) ? node.resolve(doc) : node);
  const storage = isMap(doc.contents) ? target(doc.contents.get("storage", true)) : undefined;
  const devices = isMap(storage) ? target(storage.get("osd_devices", true)) : undefined;
  if (!isSeq(devices)) return [];
  const sharedList = aliased.has(storage) || aliased.has(devices);
  return devices.items.flatMap((item, index) => {
    const name = target(item);
    if (!isScalar(name) || typeof name.value !== "string") return [];
    return [{ index, name: name as Scalar<string>, shared: sharedList || aliased.has(name) }];
  });
}

/** A disk named through a YAML alias, not by its stable path: node.yaml could only rename it where the anchor is, changing its other uses. */
export function aliasedDiskProblems(doc: Document.Parsed, host: HostFacts, names: Names): PathError[] {
  return osdDeviceItems(doc).flatMap(({ index, name, shared }) => {
    const stable = stableName(name.value, host);
    if (!shared || stable === name.value) return [];
    const path = ["storage", "osd_devices", index];
    return [{ path, message: `${names.field(path)} ${shown(name.value)} is named through a YAML alias (or its anchor), which node.yaml cannot rewrite to the disk's stable path`, hint: `write ${stable} here instead` }];
  });
}

/** A raw node.yaml with its osd_devices renamed in place: every other byte, comments included, stays as written. */
export function nodeYamlWithStableDisks(yaml: string, host: HostFacts): string {
  const result = parseYamlDocument(yaml);
  if (!result.ok) return yaml;
  const renames = osdDeviceItems(result.parsed.doc).flatMap(({ name, shared }) => {
    const stable = stableName(name.value, host);
    return shared || stable === name.value || !name.range ? [] : [{ range: name.range, value: stable }];
  });
  return replaceScalars(yaml, renames);
}
