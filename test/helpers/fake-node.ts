import { createHash, X509Certificate } from "node:crypto";
import { once } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { TestContext } from "node:test";
import { generateSelfSignedCert } from "../../core/access/tls.ts";

/** A node's installer as far as the fleet sees it: an HTTPS server on 127.0.0.1 with a certificate of its own, recording each request. */
export async function fakeInstaller(t: TestContext, handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const { certPem, keyPem } = generateSelfSignedCert({ commonName: "node", dnsNames: [], ipAddresses: ["127.0.0.1"], now: new Date() });
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
