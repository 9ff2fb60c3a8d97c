import { test } from "node:test";
import assert from "node:assert/strict";
import { X509Certificate, createPrivateKey, createPublicKey } from "node:crypto";
import { once } from "node:events";
import type { IncomingMessage } from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { checkServerIdentity, type TLSSocket } from "node:tls";
import { certificateFingerprint, generateSelfSignedCert, type SelfSignedOptions } from "../../../core/access/tls.ts";

const options: SelfSignedOptions = {
  commonName: "Stratum installer",
  dnsNames: ["localhost", "node1.stratum.internal", "localhost", "  ", ""],
  ipAddresses: ["127.0.0.1", "::1", "fe80::1", "0:0:0:0:0:0:0:1", ""],
};

const pair = generateSelfSignedCert(options);
const cert = new X509Certificate(pair.certPem);

test("50 in a row: each verifies with its own key, its serial 16 bytes, positive and unique", () => {
  const serials = new Set<string>();
  for (let i = 0; i < 50; i++) {
    const generated = generateSelfSignedCert(options);
    const x509 = new X509Certificate(generated.certPem);
    assert.equal(x509.verify(createPublicKey(createPrivateKey(generated.keyPem))), true);
    assert.match(x509.serialNumber, /^[4-7][0-9A-F]{31}$/, "high bit clear (positive) and no leading zero byte");
    serials.add(x509.serialNumber);
  }
  assert.equal(serials.size, 50);
});

test("produces a parseable certificate and a PKCS#8 key that belong together", () => {
  assert.match(pair.certPem, /^-----BEGIN CERTIFICATE-----\n[A-Za-z0-9+/=\n]+-----END CERTIFICATE-----\n$/);
  assert.match(pair.keyPem, /^-----BEGIN PRIVATE KEY-----\n/);
  const key = createPrivateKey(pair.keyPem);
  assert.equal(key.asymmetricKeyType, "ec");
  assert.equal(key.asymmetricKeyDetails?.namedCurve, "prime256v1");
  assert.equal(cert.checkPrivateKey(key), true);
  assert.equal(cert.publicKey.asymmetricKeyType, "ec");
});

test("is self-signed with subject = issuer = CN", () => {
  assert.equal(cert.verify(cert.publicKey), true);
  assert.equal(cert.subject, "CN=Stratum installer");
  assert.equal(cert.issuer, "CN=Stratum installer");
  assert.equal(cert.ca, false);
  assert.equal(cert.serialNumber.length, 32);
  assert.ok(parseInt(cert.serialNumber[0] ?? "", 16) < 8, "serial is positive");
});

test("subjectAltName carries the DNS names and IPv4/IPv6 addresses, deduplicated", () => {
  const entries = (cert.subjectAltName ?? "").split(", ");
  assert.deepEqual(entries, [
    "DNS:localhost",
    "DNS:node1.stratum.internal",
    "IP Address:127.0.0.1",
    "IP Address:0:0:0:0:0:0:0:1",
    "IP Address:FE80:0:0:0:0:0:0:1",
  ]);
  assert.equal(cert.checkHost("node1.stratum.internal"), "node1.stratum.internal");
  assert.equal(cert.checkIP("127.0.0.1"), "127.0.0.1");
  assert.equal(cert.checkIP("::1"), "::1");
  assert.equal(cert.checkIP("fe80::1"), "fe80::1");
  assert.equal(cert.checkIP("10.0.0.1"), undefined);
});

test("IPv6 forms: compression at either end, embedded IPv4", () => {
  const { certPem } = generateSelfSignedCert({
    commonName: "v6",
    dnsNames: [],
    ipAddresses: ["2001:db8::", "::ffff:10.1.2.3", "2001:db8:0:0:1::1"],
  });
  const v6 = new X509Certificate(certPem);
  assert.equal(v6.checkIP("2001:db8::"), "2001:db8::");
  assert.equal(v6.checkIP("::ffff:10.1.2.3"), "::ffff:10.1.2.3");
  assert.equal(v6.checkIP("2001:db8::1:0:0:1"), "2001:db8::1:0:0:1");
});

test("rejects entries that are not IP addresses", () => {
  assert.throws(() => generateSelfSignedCert({ commonName: "x", dnsNames: [], ipAddresses: ["localhost"] }), /not an IP address/);
});

test("validity does not depend on the clock at its making (a fresh node's may be years off until its first time sync): from 1970 to 99991231235959Z, RFC 5280's no well-defined expiry", () => {
  for (const now of [new Date("2000-01-01T00:00:00Z"), new Date("2045-06-01T12:00:00Z")]) {
    const { certPem } = generateSelfSignedCert({ ...options, now } as SelfSignedOptions & { now: Date });
    const dated = new X509Certificate(certPem);
    assert.equal(new Date(dated.validFrom).toISOString(), "1970-01-01T00:00:00.000Z");
    assert.equal(new Date(dated.validTo).toISOString(), "9999-12-31T23:59:59.000Z");
    const der = dated.raw.toString("latin1");
    assert.ok(der.includes("\x17\x0d700101000000Z"), "notBefore as UTCTime");
    assert.ok(der.includes("\x18\x0f99991231235959Z"), "notAfter as GeneralizedTime");
  }
});

test("fingerprint is uppercase colon-separated SHA-256", () => {
  assert.match(certificateFingerprint(pair.certPem), /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
});

test("each call yields a fresh key and serial", () => {
  const other = generateSelfSignedCert(options);
  assert.notEqual(new X509Certificate(other.certPem).serialNumber, cert.serialNumber);
  assert.notEqual(other.keyPem, pair.keyPem);
  assert.notEqual(certificateFingerprint(other.certPem), certificateFingerprint(pair.certPem));
});

async function fetchOverTls(port: number, host: string, servername?: string) {
  const request = https.get({ host, port, path: "/", agent: false, ca: pair.certPem, ...(servername ? { servername } : {}) });
  const [response] = (await once(request, "response")) as [IncomingMessage];
  const peer = (response.socket as TLSSocket).getPeerCertificate();
  let body = "";
  for await (const chunk of response) body += chunk;
  return { body, peer };
}

test("a real TLS handshake verifies against the certificate as CA", async (t) => {
  const server = https.createServer({ key: pair.keyPem, cert: pair.certPem }, (_req, res) => res.end("ok"));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;

  const byName = await fetchOverTls(port, "127.0.0.1", "localhost");
  assert.equal(byName.body, "ok");
  assert.equal(byName.peer.fingerprint256, certificateFingerprint(pair.certPem));
  assert.equal(checkServerIdentity("localhost", byName.peer), undefined);
  assert.equal(checkServerIdentity("127.0.0.1", byName.peer), undefined);
  assert.ok(checkServerIdentity("elsewhere.example", byName.peer) instanceof Error);

  const byIp = await fetchOverTls(port, "127.0.0.1");
  assert.equal(byIp.body, "ok");
});
