import { ipFamily, splitHostPort } from "../config/net.ts";

interface Endpoint {
  host: string;
  port: number;
}

const DEFAULT_JOIN_PORT = 8443;

/** `cluster.joinAddress` as SPEC §5 spells it: host, host:port, IPv6, or [IPv6]:port. Its shape is the validator's job. */
export function parseJoinAddress(text: string): Endpoint {
  const { host, port } = splitHostPort(text);
  return { host, port: port ? Number(port) : DEFAULT_JOIN_PORT };
}

export function authority({ host, port }: Endpoint): string {
  return `${ipFamily(host) === 6 ? `[${host}]` : host}:${port}`;
}
