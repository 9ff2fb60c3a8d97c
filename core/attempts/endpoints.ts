import { authority, parseJoinAddress } from "../cluster/endpoint.ts";
import type { Draft } from "../config/schema.ts";
import type { Endpoints } from "../state/records.ts";

/** The readiness URL is the node's own view of the cloud (usually loopback), so only its scheme and port carry over. */
export function endpointsOf(draft: Draft | undefined, readinessUrl: string): Endpoints {
  const ssh = draft?.network?.address?.split("/")[0];
  const readiness = new URL(readinessUrl);
  const port = Number(readiness.port) || (readiness.protocol === "https:" ? 443 : 80);
  const join = draft?.cluster?.joinAddress;
  const host = draft?.network?.vip ?? ssh;
  const cloudApi = join ? `https://${authority(parseJoinAddress(join))}` : host ? `${readiness.protocol}//${authority({ host, port })}` : undefined;
  return { ...(cloudApi ? { cloudApi } : {}), ...(ssh ? { ssh } : {}) };
}
