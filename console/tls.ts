/** The certificate this page came over, from the public GET /tls: shown before sign-in, so the person compares it with the banner before typing the code. */
import { fetchTls } from "./api.ts";
import { $ } from "./dom.ts";
import { utcDateTime } from "./time.ts";

export async function showCertificate(): Promise<void> {
  const tls = await fetchTls();
  if (!tls) return;
  $<HTMLTextAreaElement>("tls-fingerprint").value = tls.sha256;
  $("tls-expiry").textContent = "Valid until " + utcDateTime(tls.notAfter) + ".";
  $("tls").hidden = false;
}
