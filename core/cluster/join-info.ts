/** Step 3 of the join check: what `GET /v1/cluster/join-info` says, judged against this node. Pure. */
import { type Answer, seconds } from "../http/client.ts";
import { printableJson } from "../common/printable.ts";
import type { JoinCheck } from "../state/records.ts";

export interface JoinInfo {
  cluster: string;
  release: string;
  time: Date;
}

export interface JoinExpectations {
  /** The draft's cluster.name; when absent any cluster name is accepted. */
  clusterName?: string;
  /** This node's payload release; undefined when no payload is loaded. */
  release: string | undefined;
  /** This node's clock just before the request was sent and just after its answer came. */
  sentAt: Date;
  receivedAt: Date;
}

const MAX_CLOCK_SKEW_MS = 30_000;
const MAX_TEXT = 256;

/** The cluster's text sits in the installer's own sentences (events, verdict, console): a bidi override in it would turn them around. */
const shown = (text: string) => printableJson(text);

export function parseJoinInfo(answer: Pick<Answer, "status" | "body">): { ok: true; info: JoinInfo } | { ok: false; problem: string } {
  const fail = (what: string) => ({ ok: false as const, problem: `${what}; expected 200 with {cluster, release, time}` });
  if (answer.status !== 200) return fail(`it answered HTTP ${answer.status}`);
  let body: { cluster?: unknown; release?: unknown; time?: unknown } | null;
  try {
    body = JSON.parse(answer.body) as typeof body;
  } catch {
    return fail("its answer is not JSON");
  }
  const text = (value: unknown) => (typeof value === "string" && value.length > 0 && value.length <= MAX_TEXT ? value : undefined);
  const cluster = text(body?.cluster);
  const release = text(body?.release);
  const time = text(body?.time);
  const missing = Object.entries({ cluster, release, time }).filter(([, value]) => value === undefined).map(([key]) => key);
  if (missing.length) return fail(`its answer has no usable ${missing.join(", ")}`);
  const at = new Date(time!);
  if (Number.isNaN(at.getTime())) return fail("its time is not a date");
  return { ok: true, info: { cluster: cluster!, release: release!, time: at } };
}

export function judgeJoinInfo(info: JoinInfo, expect: JoinExpectations): { cluster: JoinCheck; release: JoinCheck; clock: JoinCheck } {
  return { cluster: judgeCluster(info, expect), release: judgeRelease(info, expect), clock: judgeClock(info, expect) };
}

function judgeCluster(info: JoinInfo, { clusterName }: JoinExpectations): JoinCheck {
  if (clusterName === undefined) return { name: "cluster", ok: true, detail: `the cluster is ${shown(info.cluster)} (the draft names none, so any is accepted)` };
  if (info.cluster === clusterName) return { name: "cluster", ok: true, detail: `the cluster is ${shown(info.cluster)}` };
  return {
    name: "cluster",
    ok: false,
    code: "JOIN_CLUSTER_MISMATCH",
    detail: `the join address belongs to cluster ${shown(info.cluster)}, the draft's cluster name is ${shown(clusterName)}: correct the cluster name, or the join address and token if this is the wrong cluster`,
  };
}

function judgeRelease(info: JoinInfo, { release }: JoinExpectations): JoinCheck {
  if (info.release === release) return { name: "release", ok: true, detail: `the cluster and this node both run release ${shown(release)}` };
  if (release === undefined) {
    const detail = `the cluster runs release ${shown(info.release)}, this node has no payload loaded: load the payload of release ${shown(info.release)} on this node, then retry`;
    return { name: "release", ok: false, code: "JOIN_RELEASE_MISMATCH", detail };
  }
  return {
    name: "release",
    ok: false,
    code: "JOIN_RELEASE_MISMATCH",
    detail: `the cluster runs release ${shown(info.release)}, this node's payload is release ${shown(release)}: load the payload of release ${shown(info.release)} on this node (or bring the cluster to ${shown(release)}), then retry`,
  };
}

/** The cluster's time was read somewhere between sentAt and receivedAt: only what lies outside that window is skew. */
function judgeClock(info: JoinInfo, { sentAt, receivedAt }: JoinExpectations): JoinCheck {
  const remote = info.time.getTime();
  const behind = sentAt.getTime() - remote;
  const ahead = remote - receivedAt.getTime();
  const skew = Math.max(behind, ahead, 0);
  if (skew <= MAX_CLOCK_SKEW_MS) return { name: "clock", ok: true, detail: `the clocks agree within ${seconds(skew)} (at most ${seconds(MAX_CLOCK_SKEW_MS)} allowed)` };
  return {
    name: "clock",
    ok: false,
    code: "JOIN_CLOCK_SKEW",
    detail: `the cluster's clock is ${seconds(skew)} ${ahead > 0 ? "ahead of" : "behind"} this node's (at most ${seconds(MAX_CLOCK_SKEW_MS)} allowed): point both at the same NTP servers (network.ntp) or set this node's clock, then retry`,
  };
}
