import { InstallerError } from "../common/errors.ts";
import type { HostFacts } from "../host/facts.ts";
import type { Origin } from "../common/log.ts";
import type { Phase } from "../common/model.ts";
import type { AttemptKind, AttemptRecord, Verdict } from "../state/records.ts";
import { phaseOf } from "./admission.ts";
import { createEventLog, type EventsPage } from "./event-log.ts";
import type { InstallEvent } from "./events.ts";
import { AttemptRunner, type Admitted, type RunnerDeps, type Stopped } from "./runner.ts";

export type { Stopped } from "./runner.ts";
export { stoppingBlocker } from "./admission.ts";

const EVENTS_PAGE_LIMIT = 1000;

interface Started {
  attempt: number;
  phase: Phase;
  eventsUrl: string;
}

type AttemptSummary = Pick<AttemptRecord, "attempt" | "kind" | "startedBy" | "state" | "step" | "startedAt" | "finishedAt" | "verdict">;

interface Report extends AttemptSummary {
  steps: AttemptRecord["steps"];
  config: AttemptRecord["config"];
  host: HostFacts;
  payloadVersion: string | null;
  nodeYamlPath?: string;
  firstbootTail: string[];
  readinessHistory: AttemptRecord["readinessHistory"];
  joinCheck?: AttemptRecord["joinCheck"];
  endpoints?: AttemptRecord["endpoints"];
}

/** Install attempts: what the API and the unattended install start, follow and read. */
export interface Attempts {
  /** A person starts an attempt: that is the "a person acted" signal too. */
  /** `ifMatch`: the draft's ETag as the person reviewed it (POST /install's If-Match). */
  begin(kind: AttemptKind, origin?: Origin, ifMatch?: string): Promise<Started>;
  /** The unattended node.yaml starts the install; `admitted` records its number in the write that records the attempt. */
  beginUnattended(admitted: Admitted): Promise<Started>;
  list(): AttemptSummary[];
  verdict(attempt?: number): Verdict;
  report(attempt?: number): Report;
  events(attempt: number | undefined, after: number): Promise<EventsPage & { attempt: number }>;
  /** NOT_FOUND at once for an unknown attempt; otherwise its events in batches, until it finished or `signal` aborts. */
  follow(attempt: number | undefined, after: number, signal: AbortSignal): AsyncIterable<InstallEvent[]>;
  /** What a killed installer left running is stopped and failed; returns notices for the banner. */
  start(): Promise<string[]>;
  stop(): Promise<Stopped>;
}

interface AttemptsDeps extends Omit<RunnerDeps, "events"> {
  host: HostFacts;
  /** A person acted: changes memory only, written with the attempt; returns its undo. */
  personActed: () => (() => void) | undefined;
}

function summary(record: AttemptRecord): AttemptSummary {
  const { attempt, kind, startedBy, state, step, startedAt, finishedAt, verdict } = record;
  return { attempt, kind, startedBy, state, step, startedAt, ...(finishedAt ? { finishedAt } : {}), ...(verdict ? { verdict } : {}) };
}

export function createAttempts(deps: AttemptsDeps): Attempts {
  const events = createEventLog(deps.settings.stateDir, deps.now);
  const runner = new AttemptRunner({ ...deps, events });
  const records = () => deps.attempts.get();

  const find = (attempt?: number): AttemptRecord => {
    const record = attempt === undefined ? records().at(-1) : records().find((a) => a.attempt === attempt);
    if (record) return record;
    throw new InstallerError({
      code: "NOT_FOUND",
      detail: attempt === undefined ? "No install attempt has started yet." : `There is no attempt ${attempt}; attempts so far: ${records().length}.`,
    });
  };

  const started = ({ attempt }: AttemptRecord): Started => ({ attempt, phase: phaseOf(records()), eventsUrl: `/v1/installer/install/events?attempt=${attempt}` });

  return {
    begin: async (kind, origin, ifMatch) => started(await runner.start(kind, "person", deps.personActed, origin, ifMatch)),
    beginUnattended: async (admitted) => started(await runner.start("install", "unattended", admitted)),
    list: () => records().map(summary),
    verdict(attempt) {
      const record = find(attempt);
      if (record.verdict) return record.verdict;
      throw new InstallerError({
        code: "INSTALL_RUNNING",
        detail: `Attempt ${record.attempt} is still running (${record.step ?? "starting"}); its verdict comes when it finishes. Follow /v1/installer/install/events?attempt=${record.attempt}.`,
      });
    },
    report(attempt) {
      const record = find(attempt);
      return {
        ...summary(record),
        steps: record.steps,
        config: record.config,
        host: deps.host,
        payloadVersion: record.payloadVersion,
        ...(record.nodeYamlPath ? { nodeYamlPath: record.nodeYamlPath } : {}),
        firstbootTail: record.firstbootTail,
        readinessHistory: record.readinessHistory,
        ...(record.joinCheck ? { joinCheck: record.joinCheck } : {}),
        ...(record.endpoints ? { endpoints: record.endpoints } : {}),
      };
    },
    async events(attempt, after) {
      const { attempt: n } = find(attempt);
      return { attempt: n, ...(await events.page(n, after, EVENTS_PAGE_LIMIT)) };
    },
    follow: (attempt, after, signal) => events.follow(find(attempt).attempt, after, signal),
    start: () => runner.recover(),
    stop: () => runner.shutdown(),
  };
}
