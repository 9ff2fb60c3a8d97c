import { readdir, readFile, realpath } from "node:fs/promises";
import os from "node:os";
import { z } from "zod";
import type { HostDisk, HostFacts, HostInterface } from "./host.ts";

const SYS_NET = "/sys/class/net";
const SYS_BLOCK = "/sys/block";
const VIRTUAL_DISK = /^(loop|ram|zram|sr|dm-|md)/;

async function readText(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, "utf8")).trim();
  } catch {
    return undefined;
  }
}

async function listDir(path: string): Promise<string[]> {
  try {
    return (await readdir(path)).sort();
  } catch {
    return [];
  }
}

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

/** Block device name (e.g. "sda1", "vda") → why it is busy ("mounted at /", "swap"). */
async function readDeviceUses(): Promise<Map<string, string[]>> {
  const uses = new Map<string, string[]>();
  const add = async (source: string, use: string) => {
    if (!source.startsWith("/dev/")) return;
    const device = await realpath(source).catch(() => source);
    const name = device.slice("/dev/".length);
    uses.set(name, [...(uses.get(name) ?? []), use]);
  };
  const mounts = ((await readText("/proc/mounts")) ?? "").split("\n").map((line) => line.split(" "));
  const swaps = ((await readText("/proc/swaps")) ?? "").split("\n").slice(1).map((line) => line.split(/\s+/));
  await Promise.all([
    ...mounts.map(([source = "", target = ""]) => add(source, `mounted at ${unescapeMountPath(target)}`)),
    ...swaps.map(([source = ""]) => add(source, "used as swap")),
  ]);
  return uses;
}

/** /proc/mounts writes space, tab, newline and backslash as octal escapes. */
function unescapeMountPath(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

async function readDisks(): Promise<HostDisk[]> {
  const [names, uses] = await Promise.all([listDir(SYS_BLOCK), readDeviceUses()]);
  return Promise.all(names.filter((name) => !VIRTUAL_DISK.test(name)).map((name) => readDisk(name, uses)));
}

async function readDisk(name: string, uses: Map<string, string[]>): Promise<HostDisk> {
  const dir = `${SYS_BLOCK}/${name}`;
  const [sectors, model, rotational, entries, holders] = await Promise.all([
    readText(`${dir}/size`),
    readText(`${dir}/device/model`),
    readText(`${dir}/queue/rotational`),
    listDir(dir),
    listDir(`${dir}/holders`),
  ]);
  const partitions = entries.filter((entry) => new RegExp(`^${name}p?\\d+$`).test(entry));
  const reasons = [
    ...(partitions.length > 0 ? [`has partitions ${partitions.join(", ")}`] : []),
    ...(holders.length > 0 ? [`held by ${holders.join(", ")}`] : []),
    ...(uses.get(name) ?? []),
    ...partitions.flatMap((partition) => (uses.get(partition) ?? []).map((use) => `${partition} ${use}`)),
  ];
  return {
    name,
    path: `/dev/${name}`,
    sizeBytes: Number(sectors ?? 0) * 512 || 0,
    model: model ?? "",
    rotational: rotational === "1",
    inUse: reasons.length > 0,
    ...(reasons.length > 0 ? { usage: reasons.join("; ") } : {}),
  };
}

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
  disks: z.array(
    z.strictObject({
      name: z.string().min(1),
      path: z.string().startsWith("/dev/"),
      sizeBytes: z.number().int().nonnegative(),
      model: z.string(),
      rotational: z.boolean(),
      inUse: z.boolean(),
      usage: z.string().optional(),
    }),
  ),
  memoryBytes: z.number().int().positive(),
  cpuCount: z.number().int().positive(),
}) satisfies z.ZodType<HostFacts>;

export async function loadHostFactsFile(path: string): Promise<HostFacts> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    throw new Error(`host facts file ${path}: ${(error as Error).message}`);
  }
  const result = HostFactsSchema.safeParse(json);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${formatPath(issue.path) || "(root)"}: ${issue.message}`);
    throw new Error(`host facts file ${path} is not valid: ${problems.join("; ")}`);
  }
  return result.data;
}

function formatPath(path: PropertyKey[]): string {
  return path
    .map((key, i) => (typeof key === "number" ? `[${key}]` : `${i === 0 ? "" : "."}${String(key)}`))
    .join("");
}
