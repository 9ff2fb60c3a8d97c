import type { HostFacts } from "../../host.ts";
import { diskList, shown, unusedDiskList } from "../messages.ts";
import type { Names, PathError } from "../schema.ts";
import { itemsOf, type Rule } from "./rule.ts";

type Problem = Omit<PathError, "path">;

function deviceProblem(device: string, host: HostFacts): Problem | undefined {
  const disk = host.disks.find((d) => d.path === device);
  if (disk) {
    if (!disk.inUse) return undefined;
    return {
      message: `${device} is in use${disk.usage ? ` (${disk.usage})` : ""}; Ceph needs a whole unused disk and erases it`,
      hint: unusedDiskList(host),
    };
  }
  const byName = host.disks.find((d) => d.name === device || d.path === `/dev/${device}`);
  if (byName) return { message: `${shown(device)} is a disk name, not a device path`, hint: `write ${byName.path}` };
  const whole = host.disks.find((d) => device.startsWith(d.path) && /^p?\d+$/.test(device.slice(d.path.length)));
  if (whole) return { message: `${device} is a partition; Ceph takes whole disks`, hint: `did you mean ${whole.path}? ${diskList(host)}` };
  return { message: `${shown(device)} is not a disk on this host`, hint: diskList(host) };
}

function duplicateProblem(device: string, index: number, devices: Array<[number, string]>, names: Names): Problem | undefined {
  const first = devices.find(([, other]) => other === device);
  if (!first || first[0] === index) return undefined;
  return { message: `${shown(device)} is listed twice (also ${names.field(["storage", "osdDevices", first[0]])})` };
}

export const osdDevicesUsable: Rule = (draft, { host, names }) => {
  const devices = itemsOf(draft.storage?.osdDevices);
  return devices.flatMap(([i, device]) => {
    const path = ["storage", "osdDevices", i];
    const problem = duplicateProblem(device, i, devices, names) ?? deviceProblem(device, host);
    return problem ? [{ path, message: `${names.field(path)} ${problem.message}`, hint: problem.hint }] : [];
  });
};
