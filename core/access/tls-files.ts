import { readFile } from "node:fs/promises";
import { hostname, networkInterfaces } from "node:os";
import { readIfPresent } from "../fs/read-if-present.ts";
import { writePrivateFile } from "../fs/write-private-file.ts";
import { stateLayout } from "../state/layout.ts";
import { certificateFingerprint, generateSelfSignedCert } from "./tls.ts";

interface TlsMaterial {
  cert: string;
  key: string;
  fingerprint: string;
  /** Where it came from, for the banner. */
  source: "operator" | "generated" | "reused";
}

/** The node's addresses but link-local ones (fe80::), which mean nothing off their link. */
function nodeAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .flatMap((info) => (info && !info.address.startsWith("fe80") ? [info.address] : []));
}

/** Operator's cert and key when given; else the state dir's self-signed pair, generated once (valid from `now`) and reused. */
export async function loadTls(stateDir: string, operator: { cert?: string; key?: string }, now: () => Date): Promise<TlsMaterial> {
  if (operator.cert && operator.key) {
    const cert = await readFile(operator.cert, "utf8");
    const key = await readFile(operator.key, "utf8");
    return { cert, key, fingerprint: certificateFingerprint(cert), source: "operator" };
  }
  const { tlsCert: certPath, tlsKey: keyPath } = stateLayout(stateDir);
  const [cert, key] = await Promise.all([readIfPresent(certPath), readIfPresent(keyPath)]);
  if (cert && key) return { cert, key, fingerprint: certificateFingerprint(cert), source: "reused" };
  const name = hostname();
  const pair = generateSelfSignedCert({
    commonName: name,
    dnsNames: [name, "localhost"],
    ipAddresses: ["127.0.0.1", "::1", ...nodeAddresses()],
    now: now(),
  });
  // A key without its certificate (a stop between the two) is generated again at the next start, like neither.
  await Promise.all([writePrivateFile(keyPath, pair.keyPem), writePrivateFile(certPath, pair.certPem)]);
  return { cert: pair.certPem, key: pair.keyPem, fingerprint: certificateFingerprint(pair.certPem), source: "generated" };
}
