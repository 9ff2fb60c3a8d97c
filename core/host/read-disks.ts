import { realpath } from "node:fs/promises";
import { listDir, readText } from "../fs/read-sys.ts";
import type { HostDisk } from "./facts.ts";

const BY_ID = "/dev/disk/by-id";
const VIRTUAL_DISK = /^(loop|ram|zram|sr|dm-|md)/;

/** Block device name (e.g. "sda1", "vda") → why it is busy ("mounted at /", "swap"). */
async function readDeviceUses(root: string): Promise<Map<string, string[]>> {
  const uses = new Map<string, string[]>();
  const add = async (source: string, use: string) => {
    if (!source.startsWith("/dev/")) return;
    const device = await realpath(root + source).catch(() => root + source);
    const name = device.slice(`${root}/dev/`.length);
    uses.set(name, [...(uses.get(name) ?? []), use]);
  };
  const mounts = ((await readText(`${root}/proc/mounts`)) ?? "").split("\n").map((line) => line.split(" "));
  const swaps = ((await readText(`${root}/proc/swaps`)) ?? "").split("\n").slice(1).map((line) => line.split(/\s+/));
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

/**
 * The host's disks from /sys/block, with their stable names (/dev/disk/by-id, udev's WWN and serial) and what keeps
 * them busy. `root` is "" on a host; a test points it at a folder laid out like one.
 */
export async function readDisks(root = ""): Promise<HostDisk[]> {
  const [names, uses, links] = await Promise.all([listDir(`${root}/sys/block`), readDeviceUses(root), readByIdLinks(root)]);
  return Promise.all(names.filter((name) => !VIRTUAL_DISK.test(name)).map((name) => readDisk(root, name, uses, links.get(name) ?? [])));
}

// wwn- names the disk itself, whatever bus or driver shows it; nvme-eui. likewise for NVMe namespaces.
const LINK_PREFERENCE = [/^wwn-/, /^nvme-eui\./];
const rank = (link: string) => {
  const at = LINK_PREFERENCE.findIndex((pattern) => pattern.test(link));
  return at < 0 ? LINK_PREFERENCE.length : at;
};

/** Device name (e.g. "sdb") → its udev links under /dev/disk/by-id, the preferred first; partitions' links left out. */
async function readByIdLinks(root: string): Promise<Map<string, string[]>> {
  const links = (await listDir(root + BY_ID)).filter((link) => !/-part\d+$/.test(link));
  const targets = await Promise.all(links.map((link) => realpath(`${root}${BY_ID}/${link}`).catch(() => "")));
  const dev = `${root}/dev/`;
  const byDevice = new Map<string, string[]>();
  links.forEach((link, i) => {
    if (!targets[i]!.startsWith(dev)) return;
    const name = targets[i]!.slice(dev.length);
    byDevice.set(name, [...(byDevice.get(name) ?? []), link]);
  });
  for (const [name, names] of byDevice) byDevice.set(name, names.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)).map((link) => `${BY_ID}/${link}`));
  return byDevice;
}

/** What udev recorded of a block device ("8:16" → ID_SERIAL_SHORT, ID_WWN, …): where lsblk reads serial and WWN. */
async function readUdevProperties(root: string, majorMinor: string | undefined): Promise<Map<string, string>> {
  const properties = new Map<string, string>();
  const text = majorMinor ? ((await readText(`${root}/run/udev/data/b${majorMinor}`)) ?? "") : "";
  for (const line of text.split("\n")) {
    const property = /^E:([^=]+)=(.*)$/.exec(line);
    if (property) properties.set(property[1]!, property[2]!);
  }
  return properties;
}

/** The WWN in a wwid as udev spells it: SCSI/SATA "naa.5002538f4312abcd" is 0x5002538f4312abcd; NVMe "eui.…" stays. */
function wwnOfWwid(wwid: string | undefined): string | undefined {
  const [, kind, hex] = /^(naa|eui)\.([0-9a-f]+)$/i.exec(wwid ?? "") ?? [];
  if (!hex) return undefined;
  return kind!.toLowerCase() === "naa" ? `0x${hex.toLowerCase()}` : `eui.${hex.toLowerCase()}`;
}

async function readDisk(root: string, name: string, uses: Map<string, string[]>, byId: string[]): Promise<HostDisk> {
  const dir = `${root}/sys/block/${name}`;
  const [sectors, model, rotational, entries, holders, majorMinor, deviceSerial, blockSerial, deviceWwid, blockWwid] = await Promise.all([
    readText(`${dir}/size`),
    readText(`${dir}/device/model`),
    readText(`${dir}/queue/rotational`),
    listDir(dir),
    listDir(`${dir}/holders`),
    readText(`${dir}/dev`),
    readText(`${dir}/device/serial`),
    readText(`${dir}/serial`),
    readText(`${dir}/device/wwid`),
    readText(`${dir}/wwid`),
  ]);
  const udev = await readUdevProperties(root, majorMinor);
  const partitions = entries.filter((entry) => new RegExp(`^${name}p?\\d+$`).test(entry));
  const reasons = [
    ...(partitions.length > 0 ? [`has partitions ${partitions.join(", ")}`] : []),
    ...(holders.length > 0 ? [`held by ${holders.join(", ")}`] : []),
    ...(uses.get(name) ?? []),
    ...partitions.flatMap((partition) => (uses.get(partition) ?? []).map((use) => `${partition} ${use}`)),
  ];
  const wwnLink = byId.map((path) => /\/wwn-(.+)$/.exec(path)?.[1]).find(Boolean);
  const wwn = udev.get("ID_WWN") || wwnLink || wwnOfWwid(deviceWwid ?? blockWwid);
  const serial = udev.get("ID_SERIAL_SHORT") || deviceSerial || blockSerial;
  return {
    name,
    path: `/dev/${name}`,
    ...(byId.length > 0 ? { byId } : {}),
    ...(wwn ? { wwn } : {}),
    ...(serial ? { serial } : {}),
    sizeBytes: Number(sectors ?? 0) * 512 || 0,
    model: model ?? udev.get("ID_MODEL") ?? "",
    rotational: rotational === "1",
    inUse: reasons.length > 0,
    ...(reasons.length > 0 ? { usage: reasons.join("; ") } : {}),
  };
}
