const SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILiKC8H2HZ+8AWqEaKfWurXlBfJr2GIG7jvaAWYOvYgK ops@example";

/** A JSON body over the API's 1 MiB body limit (handlers/admission.ts), for the routes that take none. */
export const BODY_OVER_1_MIB = JSON.stringify({ padding: "x".repeat(2 * 1024 * 1024) });

/** A structured draft that validates against demo/host-facts.json. */
export const VALID_DRAFT = {
  mode: "single-node",
  hostname: "node-01",
  timezone: "Europe/Berlin",
  network: { interface: "eno1", address: "10.20.0.11/24", gateway: "10.20.0.1", dns: ["10.20.0.2"], ntp: ["pool.ntp.org"], floatingIpCidrs: ["203.0.113.0/24"] },
  admin: { sshAuthorizedKeys: [SSH_KEY] },
};

/** VALID_DRAFT as the first node of a hyperconverged cluster "rack-a" (vip 10.20.0.10, /dev/sdb for OSDs). */
export const INIT_DRAFT = {
  ...VALID_DRAFT,
  mode: "hyperconverged-init",
  network: { ...VALID_DRAFT.network, vip: "10.20.0.10" },
  storage: { osdDevices: ["/dev/sdb"] },
  cluster: { name: "rack-a" },
};

/**
 * The sample node.yaml, as a stage 1 would leave it: VALID_DRAFT's node with the required fields
 * only. Tests derive their variants from it (another hostname, a typo, a broken indent).
 */
export const VALID_NODE_YAML = `mode: single-node
hostname: node-01
network:
  interface: eno1
  address: 10.20.0.11/24
  gateway: 10.20.0.1
admin:
  ssh_authorized_keys:
    - ${SSH_KEY}
`;

/** One node of a fleet plan as the tests write it. */
export interface PlanNode {
  name: string;
  installer: string;
  fingerprint: string;
  code: string;
  role: "init" | "join";
  /** Its management address with prefix. */
  address: string;
}

/** A fleet plan (SPEC §10) of these nodes, cluster lab-1 (vip 10.20.0.10), the joins reaching the init at `joinAddress`. */
export function fleetPlanYaml(joinAddress: string, nodes: readonly PlanNode[]): string {
  const lines = [
    "cluster:",
    "  name: lab-1",
    "  vip: 10.20.0.10",
    `  joinAddress: ${joinAddress}`,
    "  common:",
    "    timezone: UTC",
    "    network: { gateway: 10.20.0.1, dns: [10.20.0.2], floatingIpCidrs: [203.0.113.0/24] }",
    `    admin: { sshAuthorizedKeys: ["${SSH_KEY}"] }`,
    "nodes:",
  ];
  for (const node of nodes) {
    lines.push(
      `  - name: ${node.name}`,
      `    installer: ${node.installer}`,
      `    fingerprint: "${node.fingerprint}"`,
      `    code: ${node.code}`,
      `    role: ${node.role}`,
      `    config: { network: { interface: eno1, address: ${node.address} }, storage: { osdDevices: [/dev/sdb] } }`,
    );
  }
  return `${lines.join("\n")}\n`;
}
