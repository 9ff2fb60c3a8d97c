import { z } from "zod";
import type { HostFacts } from "../host/facts.ts";
import { type Mode, MODES } from "../common/model.ts";
import type { ReleaseModel } from "../payload/release-model.ts";

// Bounds keep every input cheap to validate; the rules give the precise reasons.
const text = (max: number) => z.string().min(1).max(max);

export type TextKind = "hostname" | "ip" | "cidr" | "host-or-ip" | "host-port";

/**
 * What a text field holds, for the node.yaml JSON Schema's formats and patterns. Not in .meta(): the
 * API document describes drafts, which may hold anything until they validate.
 */
export const TEXT_KINDS = z.registry<{ kind: TextKind }>();

const network = z
  .strictObject({
    interface: text(15)
      .meta({ description: "The network interface the node is managed through.", example: "eno1" })
      .optional(),
    address: text(64)
      .meta({
        description: "The node's management address with its prefix length (CIDR); its subnet is the management subnet.",
        example: "10.20.0.11/24",
      })
      .register(TEXT_KINDS, { kind: "cidr" })
      .optional(),
    gateway: text(64)
      .meta({ description: "The default gateway's IP address, inside the management subnet.", example: "10.20.0.1" })
      .register(TEXT_KINDS, { kind: "ip" })
      .optional(),
    dns: z
      .array(text(64).register(TEXT_KINDS, { kind: "ip" }))
      .max(8)
      .meta({ description: "DNS server IP addresses, in order of preference.", example: ["10.20.0.2", "10.20.0.3"] })
      .optional(),
    ntp: z
      .array(text(253).register(TEXT_KINDS, { kind: "host-or-ip" }))
      .max(8)
      .meta({ description: "NTP servers, as hostnames or IP addresses.", example: ["ntp.example.net"] })
      .optional(),
    vip: text(64)
      .meta({
        description: "The cluster's virtual IP address (hyperconverged): inside the management subnet, not the node's own.",
        example: "10.20.0.10",
      })
      .register(TEXT_KINDS, { kind: "ip" })
      .optional(),
    floatingIpCidrs: z
      .array(text(64).register(TEXT_KINDS, { kind: "cidr" }))
      .max(64)
      .meta({
        description: "Address ranges (CIDR) handed out as floating IPs; they must not overlap each other or the management subnet.",
        example: ["203.0.113.0/24"],
      })
      .optional(),
  })
  .meta({ description: "How the node is reached and reaches out." });

const storage = z
  .strictObject({
    osdDevices: z
      .array(text(256))
      .max(64)
      .meta({
        description:
          "Whole unused disks that Ceph takes for storage (erased at install), each by device path (/dev/sdb), stable path (/dev/disk/by-id/…), WWN (wwn-0x… or 0x…) or serial; the node.yaml written names each by its stable path.",
        example: ["/dev/disk/by-id/wwn-0x5002538f4312abcd", "/dev/sdc"],
      })
      .optional(),
  })
  .meta({ description: "Disks for Ceph." });

const cluster = z
  .strictObject({
    name: text(63).meta({ description: "The name of the cluster this node founds (hyperconverged-init).", example: "rack-a" }).optional(),
    joinAddress: text(261)
      .meta({
        description:
          "Where the founding node's cloud API is reached (hyperconverged-join): an IP, IP:port or hostname, port 8443 unless it names one; the cluster's vip, as GET /v1/installer/cluster/join-token on the init node's installer gives it.",
        example: "10.20.0.10",
      })
      .register(TEXT_KINDS, { kind: "host-port" })
      .optional(),
    joinToken: text(4096)
      .meta({ description: "The token the cluster issued for this node to join (secret): STRATUM1:<fingerprint>:<secret>, from GET /v1/installer/cluster/join-token on the init node's installer.", example: "STRATUM1:08de40f5723ef2bb907dede5c26f729a5364655ab5ae5c874f412dae24be058b:ekv9SqFMe9Lna6oyTRN8xREnTRLu7kloRmVhvIArWcA" })
      .optional(),
  })
  .meta({ description: "The cluster this node founds or joins." });

const admin = z
  .strictObject({
    sshAuthorizedKeys: z
      .array(text(16384))
      .max(64)
      .meta({
        description: "SSH public keys (one authorized_keys line each) allowed to log in as the admin user.",
        example: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK0wmN/Cr3JXqmLW7u+g9pTh+wyqDHpSQEIQczXkVx9q ops@example"],
      })
      .optional(),
    passwordHash: text(512)
      .meta({
        description: "The admin user's password as a crypt hash (secret), e.g. from `openssl passwd -6` or `mkpasswd -m yescrypt`.",
        example: "$6$rackAsalt$LgudYTzfY4Dbf9U2beanoM/BGu/Yfruj/GA4sxsk.UKBzX9zw3c2S92a0asXfwYo65o2O6/xy.o6rW8/JUiTe0",
      })
      .optional(),
  })
  .meta({ description: "Who may log in to the node: SSH keys, a password hash, or both." });

export const DraftSchema = z
  .strictObject({
    mode: z
      .enum(MODES)
      .meta({ description: "How this node is installed; GET /v1/installer/options says which modes are available.", example: "single-node" })
      .optional(),
    hostname: text(253)
      .meta({ description: "The node's hostname (RFC 1123).", example: "node-01" })
      .register(TEXT_KINDS, { kind: "hostname" })
      .optional(),
    timezone: text(64).meta({ description: "IANA time zone name.", example: "Europe/Berlin" }).optional(),
    network: network.optional(),
    storage: storage.optional(),
    cluster: cluster.optional(),
    admin: admin.optional(),
  })
  .meta({ id: "Draft", description: "The install configuration; every field is optional while drafting, the mode decides which are required to install." });

export type Draft = z.infer<typeof DraftSchema>;

export interface ValidationContext {
  host: HostFacts;
  release: ReleaseModel;
}

/** A field's place in the draft: keys and list indexes, e.g. ["network", "floatingIpCidrs", 1]. */
export type Path = readonly (string | number)[];

export interface PathError {
  path: Path;
  message: string;
  hint?: string;
  /** The error is about the key itself (an unknown key), not its value. */
  atKey?: boolean;
}

/** How messages name fields and modes: camelCase API names or node.yaml names. */
export interface Names {
  field(path: Path): string;
  mode(mode: Mode): string;
  readonly modes: readonly string[];
  /** "an object" in JSON, "a mapping" in YAML. */
  readonly objectWord: string;
}

export interface RuleContext extends ValidationContext {
  names: Names;
}

export type Rule = (draft: Draft, ctx: RuleContext) => PathError[];
