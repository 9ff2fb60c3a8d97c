import { readFile } from "node:fs/promises";
import os from "node:os";
import { z } from "zod";
import { NeedsOperator } from "../common/errors.ts";
import { listDir, readText } from "../fs/read-sys.ts";
import type { HostDisk, HostFacts, HostInterface } from "./facts.ts";
import { readDisks } from "./read-disks.ts";

const SYS_NET = "/sys/class/net";

export async function readHostFacts(): Promise<HostFacts> {
  const [interfaces, disks, memoryBytes] = await Promise.all([readInterfaces(), readDisks(), readMemoryBytes()]);
  return { hostname: os.hostname(), interfaces, disks, memoryBytes, cpuCount: os.availableParallelism() };
}

async function readInterfaces(): Promise<HostInterface[]> {
  const addressesByName = os.networkInterfaces();
  const names = (await listDir(SYS_NET)).filter((name) => name !== "lo");
  return Promise.all(
    names.map(async (name) => ({
      name,
      mac: (await readText(`${SYS_NET}/${name}/address`)) ?? "",
      up: (await readText(`${SYS_NET}/${name}/operstate`)) === "up",
      addresses: (addressesByName[name] ?? []).flatMap((a) => (a.cidr ? [a.cidr] : [])),
    })),
  );
}

async function readMemoryBytes(): Promise<number> {
  const meminfo = (await readText("/proc/meminfo")) ?? "";
  const kib = /^MemTotal:\s+(\d+)\s+kB$/m.exec(meminfo)?.[1];
  return kib ? Number(kib) * 1024 : os.totalmem();
}

export const HostDiskSchema = z.strictObject({
  name: z.string().min(1),
  path: z.string().startsWith("/dev/").meta({ description: "Kernel device path, e.g. /dev/sdb: it may name another disk after a reboot or a disk swap." }),
  byId: z
    .array(z.string().startsWith("/dev/disk/by-id/"))
    .optional()
    .meta({ description: "The disk's stable paths under /dev/disk/by-id, the preferred first (its wwn- link when it has one): node.yaml's storage.osd_devices gets that one." }),
  wwn: z.string().min(1).optional().meta({ description: "World Wide Name as udev spells it, e.g. 0x5002538f4312abcd (NVMe: eui.…)." }),
  serial: z.string().min(1).optional().meta({ description: "The disk's serial number." }),
  sizeBytes: z.number().int().nonnegative(),
  model: z.string(),
  rotational: z.boolean(),
  inUse: z.boolean(),
  usage: z.string().optional(),
}) satisfies z.ZodType<HostDisk>;

export const HostFactsSchema = z.strictObject({
  hostname: z.string().min(1),
  interfaces: z.array(
    z.strictObject({
      name: z.string().min(1),
      mac: z.string(),
      up: z.boolean(),
      addresses: z.array(z.string()),
    }),
  ),
  disks: z.array(HostDiskSchema),
  memoryBytes: z.number().int().positive(),
  cpuCount: z.number().int().positive(),
}) satisfies z.ZodType<HostFacts>;

export async function loadHostFactsFile(path: string): Promise<HostFacts> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    throw new NeedsOperator(`host facts file ${path}: ${(error as Error).message}`);
  }
  // Parsed once per start: compiling zod's fast path for it cost more than it saves (≈ 5 ms of the start).
  const result = HostFactsSchema.safeParse(json, { jitless: true });
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${formatPath(issue.path) || "(root)"}: ${issue.message}`);
    throw new NeedsOperator(`host facts file ${path} is not valid: ${problems.join("; ")}`);
  }
  return result.data;
}

function formatPath(path: PropertyKey[]): string {
  return path
    .map((key, i) => (typeof key === "number" ? `[${key}]` : `${i === 0 ? "" : "."}${String(key)}`))
    .join("");
}
