import { type KeyObject, X509Certificate, createPrivateKey } from "node:crypto";
import { readFile } from "node:fs/promises";
import { hostname, networkInterfaces } from "node:os";
import { NeedsOperator } from "../common/errors.ts";
import { readIfPresent } from "../fs/read-if-present.ts";
import { writeFilesAtomic } from "../fs/atomic-write.ts";
import { stateLayout } from "../state/layout.ts";
import { certificateFingerprint, generateSelfSignedCert } from "./tls.ts";

interface TlsMaterial {
  cert: string;
  key: string;
  fingerprint: string;
  /** Where it came from, for the banner. */
  source: "operator" | "generated" | "reused";
  /** For the start's notices: a pair made again because half of it was gone. */
  notice?: string;
}

/** The node's addresses but link-local ones (fe80::), which mean nothing off their link. */
function nodeAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .flatMap((info) => (info && !info.address.startsWith("fe80") ? [info.address] : []));
}

/**
 * The operator's --tls-cert and --tls-key, checked before the service listens: a file that cannot be read, is not a
 * PEM certificate or key, or a key that is not the certificate's, names its flag and file and needs the operator (a
 * restart reads the same files: exit 2). OpenSSL's own words ("PEM routines::no start line") named neither.
 */
async function operatorPair(certPath: string, keyPath: string): Promise<{ cert: string; key: string }> {
  const read = (flag: string, path: string) =>
    readFile(path, "utf8").catch((err: NodeJS.ErrnoException) => {
      throw new NeedsOperator(`${flag} ${path} cannot be read (${err.code ?? err.message}): give the file the installer is to serve with`);
    });
  // Both read at once, the certificate's problem said first whichever read fails first (it raced: one message or the other).
  const [certRead, keyRead] = await Promise.allSettled([read("--tls-cert", certPath), read("--tls-key", keyPath)]);
  for (const settled of [certRead, keyRead]) if (settled.status === "rejected") throw settled.reason;
  const [cert, key] = [(certRead as PromiseFulfilledResult<string>).value, (keyRead as PromiseFulfilledResult<string>).value];
  const fault = pairFault(cert, key);
  if (fault === "no certificate") throw new NeedsOperator(`--tls-cert ${certPath} holds no PEM certificate (-----BEGIN CERTIFICATE-----): give the certificate, and its key as --tls-key`);
  if (fault === "no key") throw new NeedsOperator(`--tls-key ${keyPath} holds no unencrypted PEM private key: give the certificate's key (the installer cannot ask for a passphrase)`);
  if (fault === "not its key") throw new NeedsOperator(`--tls-key ${keyPath} is not the key of --tls-cert ${certPath}: give the pair`);
  return { cert, key };
}

/** What keeps a certificate and a key from serving as a pair; undefined when nothing does. */
function pairFault(cert: string, key: string): "no certificate" | "no key" | "not its key" | undefined {
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch {
    return "no certificate";
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    return "no key";
  }
  return x509.checkPrivateKey(privateKey) ? undefined : "not its key";
}

/** Operator's cert and key when given; else the state dir's self-signed pair, generated once and reused. */
export async function loadTls(stateDir: string, operator: { cert?: string; key?: string }): Promise<TlsMaterial> {
  if (operator.cert && operator.key) {
    const { cert, key } = await operatorPair(operator.cert, operator.key);
    return { cert, key, fingerprint: certificateFingerprint(cert), source: "operator" };
  }
  const { tlsCert: certPath, tlsKey: keyPath } = stateLayout(stateDir);
  const [cert, key] = await Promise.all([readIfPresent(certPath), readIfPresent(keyPath)]);
  if (cert && key) {
    const fault = pairFault(cert, key);
    const damaged = fault === "no certificate" ? `${certPath} holds no PEM certificate` : fault === "no key" ? `${keyPath} holds no PEM private key` : fault && `${keyPath} is not the key of ${certPath}`;
    if (damaged) {
      // Not made again: clients and plans pin this certificate's fingerprint, and a new one must be said, not slipped in.
      throw new NeedsOperator(`the state dir's TLS pair is damaged: ${damaged}; restore both files from a backup, or remove both so that the installer makes a new pair (its fingerprint changes: plans and clients that pin it must be told)`);
    }
    return { cert, key, fingerprint: certificateFingerprint(cert), source: "reused" };
  }
  const name = hostname();
  const pair = generateSelfSignedCert({
    commonName: name,
    dnsNames: [name, "localhost"],
    ipAddresses: ["127.0.0.1", "::1", ...nodeAddresses()],
  });
  // Each made new (exclusive) where there was none, both whole before either is in place. A kill, or a disk that takes
  // only part of the pair, leaves none of what this start made: the next start would say it found half a pair and
  // replaced one nobody was ever shown.
  await writeFilesAtomic([
    { path: keyPath, data: pair.keyPem, exclusive: key === undefined },
    { path: certPath, data: pair.certPem, exclusive: cert === undefined },
  ]);
  const fingerprint = certificateFingerprint(pair.certPem);
  // Half a pair (a file removed or emptied since, or left so by an older installer stopped between its two writes) is
  // made again, like neither; said, since clients and plans may pin the old one's fingerprint.
  const half = cert ? [keyPath, key] : key ? [certPath, cert] : undefined;
  const notice = half && `the state dir's TLS pair was half there (${half[0]} was ${half[1] === undefined ? "missing" : "empty"}): made a new pair, whose fingerprint ${fingerprint} is not the one clients and plans may have pinned`;
  return { cert: pair.certPem, key: pair.keyPem, fingerprint, source: "generated", ...(notice ? { notice } : {}) };
}
