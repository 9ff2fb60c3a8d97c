/**
 * The demo cloud's TLS certificate, made once and kept in one file: a join token pins the
 * certificate's SHA-256, so a token printed before a restart of `npm start` must still match after it.
 */
import { link, readFile, rm, writeFile } from "node:fs/promises";
import { generateSelfSignedCert } from "../core/access/tls.ts";

interface CloudCert {
  certPem: string;
  keyPem: string;
}

export async function keptCloudCert(file: string): Promise<CloudCert> {
  const kept = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  if (kept !== undefined) return JSON.parse(kept) as CloudCert;
  const { certPem, keyPem } = generateSelfSignedCert({ commonName: "stratum-readiness-demo", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1", "::1"] });
  // Written whole aside, then linked into place: of demos starting at once, the first link wins and all read the same pair.
  const aside = `${file}.${process.pid}`;
  await writeFile(aside, JSON.stringify({ certPem, keyPem }), { mode: 0o600 });
  await link(aside, file).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
  });
  await rm(aside);
  return JSON.parse(await readFile(file, "utf8")) as CloudCert;
}
