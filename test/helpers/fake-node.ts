import { createHash, X509Certificate } from "node:crypto";
import { once } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { TestContext } from "node:test";
import { generateSelfSignedCert } from "../../core/access/tls.ts";
import { fleetPlanYaml } from "./fixtures.ts";

/** A node's installer as far as the fleet sees it: an HTTPS server on 127.0.0.1 with a certificate of its own, recording each request. */
export async function fakeInstaller(t: TestContext, handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const { certPem, keyPem } = generateSelfSignedCert({ commonName: "node", dnsNames: [], ipAddresses: ["127.0.0.1"] });
  const pin = createHash("sha256").update(new X509Certificate(certPem).raw).digest("hex");
  const seen: string[] = [];
  const server = createServer({ cert: certPem, key: keyPem }, (req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
    handler(req, res);
  }).listen(0, "127.0.0.1");
  await once(server, "listening");
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: new URL(`https://127.0.0.1:${(server.address() as AddressInfo).port}`), pin, seen, server };
}

/** A plan of these installers (every code abcd-efgh-ijkl), the init node the one at `initAt`. */
export function planText(nodes: Array<{ url: URL; pin: string }>, initAt = 0): string {
  return fleetPlanYaml(
    "127.0.0.1:1",
    nodes.map((node, i) => ({
      name: `node-${i + 1}`,
      installer: node.url.origin,
      fingerprint: node.pin,
      code: "abcd-efgh-ijkl",
      role: i === initAt ? "init" : "join",
      address: `10.20.${Math.floor(i / 200)}.${11 + (i % 200)}/16`,
    })),
  );
}

/** Attempt 1's report as an installer gives it (GET /install/report), with `verdict`: what the fleet holds a success against. */
export function attemptReport(verdict: Record<string, unknown>): Record<string, unknown> {
  const host = { hostname: "n", interfaces: [], disks: [], memoryBytes: 1, cpuCount: 1 };
  const times = { startedAt: "2026-01-01T00:00:00.000Z", finishedAt: "2026-01-01T00:00:01.000Z" };
  return { attempt: 1, kind: "install", startedBy: "person", state: verdict.outcome, step: verdict.step, ...times, verdict, steps: [], config: { source: "structured" }, host, payloadVersion: null, firstbootTail: [], readinessHistory: [] };
}
