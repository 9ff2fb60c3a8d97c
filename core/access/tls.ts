/**
 * Self-signed X.509 v3 certificates (EC P-256, ECDSA-SHA256) built with node:crypto alone:
 * a minimal DER encoder assembles the TBSCertificate, which is then signed.
 */
import { X509Certificate, generateKeyPairSync, randomBytes, sign } from "node:crypto";
import { parseAddress } from "../config/net.ts";

export interface SelfSignedOptions {
  commonName: string;
  dnsNames: string[];
  ipAddresses: string[];
}

/**
 * A self-signed certificate's validity, whatever the clock says when it is made: a fresh node's clock may be years off
 * until its first time sync (a dead RTC battery: 2000), and a certificate made "valid" from then would be expired, or not
 * yet valid, to every client whose clock is right. Clients pin it; its key, in the state dir, is what it rests on. Valid
 * from the Unix epoch to RFC 5280 §4.1.2.5's "no well-defined expiration date" (99991231235959Z).
 */
const VALIDITY = { notBefore: new Date("1970-01-01T00:00:00Z"), notAfter: new Date("9999-12-31T23:59:59Z") };

interface CertificatePair {
  certPem: string;
  keyPem: string;
}

const OID = {
  commonName: "2.5.4.3",
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
  subjectAltName: "2.5.29.17",
  basicConstraints: "2.5.29.19",
  keyUsage: "2.5.29.15",
  extKeyUsage: "2.5.29.37",
  serverAuth: "1.3.6.1.5.5.7.3.1",
};

function derLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...contents: Buffer[]): Buffer {
  const body = Buffer.concat(contents);
  return Buffer.concat([Buffer.from([tag]), derLength(body.length), body]);
}

const sequence = (...items: Buffer[]) => tlv(0x30, ...items);

function oid(dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split(".").map(Number);
  const bytes = [40 * first + second];
  for (const arc of rest) {
    const base128 = [arc & 0x7f];
    for (let high = Math.floor(arc / 128); high > 0; high = Math.floor(high / 128)) {
      base128.unshift(0x80 | (high & 0x7f));
    }
    bytes.push(...base128);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, "").slice(0, 14) + "Z"; // YYYYMMDDHHMMSSZ
  // RFC 5280 §4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050.
  const year = date.getUTCFullYear();
  return year >= 1950 && year < 2050 ? tlv(0x17, Buffer.from(iso.slice(2), "ascii")) : tlv(0x18, Buffer.from(iso, "ascii"));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return sequence(oid(id), ...(critical ? [tlv(0x01, Buffer.from([0xff]))] : []), tlv(0x04, value));
}

/** The address's bytes, as the SAN's iPAddress holds them; a zone index (%eth0) names no other address. */
function ipBytes(address: string): Buffer {
  const parsed = parseAddress(address.split("%")[0]!);
  if (!parsed) throw new Error(`${JSON.stringify(address)} is not an IP address`);
  const { family, value } = parsed;
  return Buffer.from(value.toString(16).padStart(family === 4 ? 8 : 32, "0"), "hex");
}

function subjectAltNames(dnsNames: string[], ipAddresses: string[]): Buffer[] {
  const entries = new Map<string, Buffer>();
  for (const name of dnsNames.map((n) => n.trim()).filter(Boolean)) {
    if (!/^[\x21-\x7e]+$/.test(name)) throw new Error(`DNS name must be printable ASCII (punycode): ${JSON.stringify(name)}`);
    const key = `dns:${name.toLowerCase()}`;
    if (!entries.has(key)) entries.set(key, tlv(0x82, Buffer.from(name, "ascii")));
  }
  for (const address of ipAddresses.map((a) => a.trim()).filter(Boolean)) {
    const bytes = ipBytes(address);
    entries.set(`ip:${bytes.toString("hex")}`, tlv(0x87, bytes));
  }
  return [...entries.values()];
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

export function generateSelfSignedCert(opts: SelfSignedOptions): CertificatePair {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const { notBefore, notAfter } = VALIDITY;

  const serial = randomBytes(16);
  serial[0] = ((serial[0] ?? 0) & 0x7f) | 0x40; // positive, and no leading zero byte to strip
  const name = sequence(tlv(0x31, sequence(oid(OID.commonName), tlv(0x0c, Buffer.from(opts.commonName, "utf8")))));
  const signatureAlgorithm = sequence(oid(OID.ecdsaWithSha256));
  const altNames = subjectAltNames(opts.dnsNames, opts.ipAddresses);
  const extensions = sequence(
    ...(altNames.length > 0 ? [extension(OID.subjectAltName, false, sequence(...altNames))] : []),
    extension(OID.basicConstraints, true, sequence()),
    extension(OID.keyUsage, true, tlv(0x03, Buffer.from([0x07, 0x80]))),
    extension(OID.extKeyUsage, false, sequence(oid(OID.serverAuth))),
  );

  const tbs = sequence(
    tlv(0xa0, tlv(0x02, Buffer.from([0x02]))),
    tlv(0x02, serial),
    signatureAlgorithm,
    name,
    sequence(time(notBefore), time(notAfter)),
    name,
    publicKey.export({ type: "spki", format: "der" }),
    tlv(0xa3, extensions),
  );
  const signature = sign("sha256", tbs, { key: privateKey, dsaEncoding: "der" });
  const certificate = sequence(tbs, signatureAlgorithm, tlv(0x03, Buffer.from([0x00]), signature));

  return {
    certPem: pem("CERTIFICATE", certificate),
    keyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  };
}

export interface CertificateFacts {
  /** SHA-256 fingerprint as the banner prints it. */
  sha256: string;
  notAfter: string;
}

export function certificateFacts(certPem: string): CertificateFacts {
  const cert = new X509Certificate(certPem);
  return { sha256: cert.fingerprint256, notAfter: new Date(cert.validTo).toISOString() };
}

/** SHA-256 fingerprint as uppercase colon-separated hex ("AB:CD:..."). */
export function certificateFingerprint(certPem: string): string {
  return new X509Certificate(certPem).fingerprint256;
}
