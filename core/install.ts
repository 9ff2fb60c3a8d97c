import type { AttemptEventLog, InstallEvent } from "./attempts/events.ts";
import { readEvents } from "./attempts/events.ts";
import type { AttemptRunner } from "./attempts/runner.ts";
import type { AttemptRecord, Verdict } from "./attempts/types.ts";
import { InstallerError } from "./errors.ts";
import type { HostFacts } from "./host.ts";
import type { AttemptKind, Phase } from "./model.ts";
import { phaseOf } from "./status.ts";

export const EVENTS_PAGE_LIMIT = 1000;

export interface Started {
  attempt: number;
  phase: Phase;
  eventsUrl: string;
}

export interface EventsPage {
  attempt: number;
  events: InstallEvent[];
  /** The attempt's attempt.finished event is among these or earlier ones. */
  finished: boolean;
  /** More events follow: ask again with after = the last seq. */
  more: boolean;
}

export type AttemptSummary = Pick<AttemptRecord, "attempt" | "kind" | "startedBy" | "state" | "step" | "startedAt" | "finishedAt" | "verdict">;

export interface Report extends AttemptSummary {
  steps: AttemptRecord["steps"];
  config: AttemptRecord["config"];
  host: HostFacts;
  payloadVersion: string | null;
  nodeYamlPath?: string;
  firstbootTail: string[];
  readinessHistory: AttemptRecord["readinessHistory"];
}

export interface InstallService {
  start(kind: AttemptKind, startedBy?: AttemptRecord["startedBy"]): Promise<Started>;
  attempts(): AttemptSummary[];
  verdict(attempt?: number): Verdict;
  report(attempt?: number): Report;
  events(attempt: number | undefined, after: number, limit?: number): Promise<EventsPage>;
  eventLog(attempt?: number): Promise<AttemptEventLog>;
}

function summary(record: AttemptRecord): AttemptSummary {
  const { attempt, kind, startedBy, state, step, startedAt, finishedAt, verdict } = record;
  return { attempt, kind, startedBy, state, step, startedAt, ...(finishedAt ? { finishedAt } : {}), ...(verdict ? { verdict } : {}) };
}

export function createInstallService(runner: AttemptRunner, host: HostFacts): InstallService {
  return {
    async start(kind, startedBy = "person") {
      const { attempt } = await runner.start(kind, startedBy);
      return { attempt, phase: phaseOf(runner.attempts), eventsUrl: `/v1/installer/install/events?attempt=${attempt}` };
    },
    attempts: () => runner.attempts.map(summary),
    verdict(attempt) {
      const record = runner.find(attempt);
      if (record.verdict) return record.verdict;
      throw new InstallerError({
        code: "INSTALL_RUNNING",
        detail: `Attempt ${record.attempt} is still running (${record.step ?? "starting"}); its verdict comes when it finishes. Follow /v1/installer/install/events?attempt=${record.attempt}.`,
      });
    },
    report(attempt) {
      const record = runner.find(attempt);
      return {
        ...summary(record),
        steps: record.steps,
        config: record.config,
        host,
        payloadVersion: record.payloadVersion,
        ...(record.nodeYamlPath ? { nodeYamlPath: record.nodeYamlPath } : {}),
        firstbootTail: record.firstbootTail,
        readinessHistory: record.readinessHistory,
      };
    },
    async events(attempt, after, limit = EVENTS_PAGE_LIMIT) {
      const record = runner.find(attempt);
      const log = await runner.eventLog(record.attempt);
      await log.flush();
      const events = await readEvents(log.path, after, limit + 1);
      const more = events.length > limit;
      const page = more ? events.slice(0, limit) : events;
      return { attempt: record.attempt, events: page, finished: !more && log.finished, more };
    },
    async eventLog(attempt) {
      return runner.eventLog(runner.find(attempt).attempt);
    },
  };
}
