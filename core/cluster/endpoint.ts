import { isIP } from "node:net";

export interface Endpoint {
  host: string;
  port: number;
}

export const DEFAULT_JOIN_PORT = 8443;

/** `cluster.joinAddress` as SPEC §5 spells it: host, host:port, IPv6, or [IPv6]:port. Its shape is the validator's job. */
export function parseJoinAddress(text: string): Endpoint {
  const bracketed = /^\[([^\]]*)\](?::(\d+))?$/.exec(text);
  if (bracketed) return { host: bracketed[1] ?? "", port: bracketed[2] ? Number(bracketed[2]) : DEFAULT_JOIN_PORT };
  const withPort = isIP(text) === 6 ? null : /^([^:]*):(\d+)$/.exec(text);
  if (withPort) return { host: withPort[1] ?? "", port: Number(withPort[2]) };
  return { host: text, port: DEFAULT_JOIN_PORT };
}

export function authority({ host, port }: Endpoint): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

export const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
