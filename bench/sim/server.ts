/**
 * A process of simulated installers: `node --import tsx bench/sim/server.ts '{"first":0,"count":250,"attemptMs":3000}'`.
 * Each node listens on 127.0.0.1 on a port of its own with a certificate of its own; once all listen, one line
 * of JSON on stdout says each one's name, port, certificate SHA-256 and install code. It ends with its stdin.
 */
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { generateSelfSignedCert, certificateFingerprint } from "../../core/access/tls.ts";
import { SimNode } from "./node.ts";

export interface SimListening {
  name: string;
  port: number;
  pin: string;
  code: string;
}

export const nodeName = (index: number) => `node-${String(index + 1).padStart(4, "0")}`;

async function listen(index: number, attemptMs: number): Promise<SimListening> {
  const name = nodeName(index);
  const code = randomBytes(6).toString("hex");
  const node = new SimNode({ name, role: index === 0 ? "init" : "join", code, attemptMs });
  const { certPem, keyPem } = generateSelfSignedCert({ commonName: name, dnsNames: [], ipAddresses: ["127.0.0.1"] });
  const server = createServer({ cert: certPem, key: keyPem }, (req, res) => {
    node.handle(req, res).catch((error: Error) => res.destroy(error));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { name, port: (server.address() as AddressInfo).port, pin: certificateFingerprint(certPem), code };
}

const { first, count, attemptMs } = JSON.parse(process.argv[2] ?? "{}") as { first: number; count: number; attemptMs: number };
const nodes: SimListening[] = [];
for (let i = first; i < first + count; i++) nodes.push(await listen(i, attemptMs));
process.stdout.write(`${JSON.stringify(nodes)}\n`);
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
