import { Readable } from "node:stream";
import { parseJsonBody } from "../core/draft/index.ts";
import type { Services } from "../core/service/services.ts";
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

/**
 * Runs, once, what a fresh installer's first requests would otherwise run cold, each costing them milliseconds of
 * CPU (bench/RESULTS.md): Hono's router builds its matchers at its first match; the status's draft analysis and the
 * validation rules (zod's generated parsers, the time zone list) run their first time; Node loads its Fetch Request
 * and stream adapters for the first request with a body. Only reads and pure functions: no state file written, no
 * request logged, no lockout count cleared or added to (test/handlers/warm-up.test.ts). `serve` calls it at its first
 * quiet moment (cli/warm-up.ts).
 */
export async function warmUp(app: ReturnType<typeof createApp>, services: Services): Promise<void> {
  app.router.match("GET", "/v1/installer/status");
  services.status();
  services.draft.validate(parseJsonBody(SAMPLE_DRAFT));
  // As @hono/node-server makes a request with a body: Node's stream as the Fetch body.
  const body = Readable.toWeb(Readable.from([Buffer.from(SAMPLE_DRAFT)])) as ReadableStream<Uint8Array>;
  await new Request("https://installer.invalid/v1/installer/config/validate", { method: "POST", body, duplex: "half" } as RequestInit).text();
}
