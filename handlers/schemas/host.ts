import { z } from "@hono/zod-openapi";
import { HostDiskSchema, HostFactsSchema } from "../../core/host/read-facts.ts";

export const HostDisk = HostDiskSchema.meta({
  id: "HostDisk",
  description: "A disk of the host. A draft may name it by path, by any of its byId paths or their link names (wwn-0x…), by its WWN or by its serial.",
});

export const HostInventorySchema = HostFactsSchema.extend({ disks: z.array(HostDisk) }).meta({
  id: "HostInventory",
  description: "The node's network interfaces, disks, memory and CPUs.",
});
