import { isScalar, isSeq } from "yaml";
import { diskNamed, stablePath } from "../disk-names.ts";
import type { HostFacts } from "../host.ts";
import type { Draft } from "./schema.ts";
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

/** A raw node.yaml with its osd_devices renamed in place: every other byte, comments included, stays as written. */
export function nodeYamlWithStableDisks(yaml: string, host: HostFacts): string {
  const result = parseYamlDocument(yaml);
  if (!result.ok) return yaml;
  const devices = result.parsed.doc.getIn(["storage", "osd_devices"], true);
  if (!isSeq(devices)) return yaml;
  const renames = devices.items.flatMap((item) => {
    if (!isScalar(item) || typeof item.value !== "string" || !item.range) return [];
    const stable = stableName(item.value, host);
    return stable === item.value ? [] : [{ range: item.range, value: stable }];
  });
  return replaceScalars(yaml, renames);
}
