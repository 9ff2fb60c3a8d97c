/** A fleet plan for a rack of many nodes: one init and the rest joins, every address in one /16 (bench/plan-1000.ts, bench/fleet-sim.ts). */
const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILiKC8H2HZ+8AWqEaKfWurXlBfJr2GIG7jvaAWYOvYgK ops@example";

/** The management address of the rack's node `i` (0-based). */
export const rackAddress = (i: number) => `10.20.${Math.floor((i + 11) / 250)}.${((i + 11) % 250) + 1}`;

export interface RackNode {
  name: string;
  installer: string;
  fingerprint: string;
  code: string;
}

export function rackPlan(nodes: readonly RackNode[]): string {
  const lines = [
    "cluster:",
    "  name: rack-1",
    "  vip: 10.20.255.250",
    "  common:",
    "    timezone: UTC",
    "    network: { gateway: 10.20.255.254, dns: [10.20.0.2], floatingIpCidrs: [203.0.113.0/24] }",
    `    admin: { sshAuthorizedKeys: ["${KEY}"] }`,
    "nodes:",
  ];
  nodes.forEach((node, i) => {
    const address = rackAddress(i);
    lines.push(
      `  - name: ${node.name}`,
      `    installer: ${node.installer}`,
      `    fingerprint: "${node.fingerprint}"`,
      `    code: "${node.code}"`,
      `    role: ${i === 0 ? "init" : "join"}`,
      `    config: { network: { interface: eno1, address: ${address}/16 }, storage: { osdDevices: [/dev/sdb] } }`,
    );
  });
  return `${lines.join("\n")}\n`;
}
