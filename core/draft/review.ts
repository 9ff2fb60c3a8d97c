import type { Draft } from "../config/index.ts";
import { diskNamed } from "../host/disk-names.ts";
import type { HostDisk, HostFacts } from "../host/facts.ts";

/** What an install of the draft does that cannot be undone, shown before it starts. */
export interface InstallReview {
  /** The node.yaml the install writes, its secrets shown as "[redacted]". */
  nodeYaml: string;
  /** The disks Ceph erases, as the host reports them. */
  erases: HostDisk[];
  /** The ETag of the draft reviewed. */
  etag: string;
}

/** The host's disks a valid draft names for Ceph, in the draft's order. */
export function erasedDisks(draft: Draft, host: HostFacts): HostDisk[] {
  return (draft.storage?.osdDevices ?? []).flatMap((name) => diskNamed(host, name) ?? []);
}
