import { hostnameProblem } from "./hostname-check.ts";
import { type Ip, type Parsed, parseIp } from "./ip.ts";
import { quoted } from "./quote.ts";

export type HostOrIp = { kind: "ip"; ip: Ip } | { kind: "hostname"; name: string };

export function parseHostOrIp(text: string): Parsed<HostOrIp> {
  const ip = parseIp(text);
  if (ip.ok) return { ok: true, value: { kind: "ip", ip: ip.value } };
  // Digits and dots, colons, a prefix or a zone: meant as an IP address, so say what is wrong with it as one.
  if (/^[\d.]+$/.test(text) || /[:/%]/.test(text) || text.trim() !== text) return ip;
  const problem = hostnameProblem(text);
  if (problem) return { ok: false, problem: `${quoted(text)} is neither an IP address nor a valid hostname: ${problem}` };
  return { ok: true, value: { kind: "hostname", name: text } };
}
