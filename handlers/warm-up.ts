import { Readable } from "node:stream";
import type { createApp } from "./app.ts";

/**
 * A whole draft of the kind a fleet checks (a cluster's join), every field filled, so that every rule runs (no real
 * token or password: a sample hash). On the demo host it validates; on a real one its interface and disk may not
 * exist, and those two rules take their error branch instead.
 */
export const SAMPLE_DRAFT = JSON.stringify({
  mode: "hyperconverged-join",
  hostname: "warm-up",
  timezone: "UTC",
  network: { interface: "eno1", address: "192.0.2.12/24", gateway: "192.0.2.1", dns: ["192.0.2.2"], ntp: ["192.0.2.3", "ntp.example.net"], vip: "192.0.2.10", floatingIpCidrs: ["198.51.100.0/24"] },
  storage: { osdDevices: ["/dev/sdb"] },
  admin: {
    sshAuthorizedKeys: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILiKC8H2HZ+8AWqEaKfWurXlBfJr2GIG7jvaAWYOvYgK ops@example"],
    passwordHash: "$6$saltsalt$hRM5XZ86KXEw9UOmjigeVqFgULtFB2sgpC9lXQDfMib3Zgw7mEiUvBJI2EplzfAqxL5Vvwp2scFtv/uamSo5z0",
  },
  cluster: { name: "rack-a", joinAddress: "192.0.2.10:8443", joinToken: `STRATUM1:${"ab".repeat(32)}:warm-up-sample-not-a-secret` },
});

/** The warm-up's requests' client address: no IP address, so no client's record in the lockout is ever theirs. */
const WARM_UP_CLIENT = "warm-up";

/** What the warm-up asks, as a fresh node's first client would (the fleet's checks, a console's first view). */
const WARM_REQUESTS: ReadonlyArray<{ path: string; body?: string }> = [
  { path: "/v1/installer/status" },
  { path: "/v1/installer/options" },
  { path: "/v1/installer/config" },
  { path: "/v1/installer/config/validate", body: SAMPLE_DRAFT },
];

/**
 * Runs, once, what a fresh installer's first requests would otherwise run cold, each costing them milliseconds of
 * CPU (bench/RESULTS.md): the reads a first client makes (status, options, the draft, a validation of a sample join
 * draft) go through the whole API in-process (`app.request`: Hono's router and admission, the install code's check,
 * the route's validators and handler, zod's generated parsers, the time zone list, the answer's JSON), and Node loads
 * its Fetch Request and stream adapters for a request whose body is a socket's. Only reads: no state file written, no
 * request logged, no client's lockout count cleared or added to, since its requests name a client address no socket
 * has (test/handlers/warm-up.test.ts). An answer other than 200 throws, so that a warm-up gone stale shows in the log.
 * `serve` calls it at its first quiet moment (cli/warm-up.ts); once `stopping()` says a stop was asked for it asks
 * nothing more and resolves false.
 */
export async function warmUp(app: Pick<ReturnType<typeof createApp>, "request">, code: string, stopping: () => boolean = () => false): Promise<boolean> {
  for (const { path, body } of WARM_REQUESTS) {
    // A stop asked for meanwhile: nothing more is asked of services that are stopping.
    if (stopping()) return false;
    const headers: Record<string, string> = { authorization: `Bearer ${code}`, ...(body ? { "content-type": "application/json" } : {}) };
    // What @hono/node-server hands the app: Node's parsed headers, and a socket whose address no client can have.
    const response = await app.request(path, { method: body ? "POST" : "GET", headers, ...(body ? { body } : {}) }, { incoming: { socket: { remoteAddress: WARM_UP_CLIENT }, headers } });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${body ? "POST" : "GET"} ${path} answered ${response.status}`);
  }
  // As @hono/node-server makes a request with a body: Node's stream as the Fetch body.
  const stream = Readable.toWeb(Readable.from([Buffer.from(SAMPLE_DRAFT)])) as ReadableStream<Uint8Array>;
  await new Request("https://installer.invalid/v1/installer/config/validate", { method: "POST", body: stream, duplex: "half" } as RequestInit).text();
  return true;
}
