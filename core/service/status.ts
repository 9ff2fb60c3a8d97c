import { phaseOf } from "../attempts/admission.ts";
import type { DraftAnalysis } from "../draft/index.ts";
import type { Blocker } from "../common/errors.ts";
import type { Mode, Phase, Profile } from "../common/model.ts";
import type { AttemptRecord, Step, UnattendedRecord } from "../state/records.ts";

export interface Status {
  phase: Phase;
  version: string;
  mode?: Mode;
  profile: Profile;
  hostname: string;
  url: string;
  configValid: boolean;
  attempt: number;
  step?: Step;
  startedAt?: string;
  finishedAt?: string;
  blockers?: Blocker[];
  unattended?: UnattendedRecord;
}

interface StatusInputs {
  version: string;
  url: string;
  hostHostname: string;
  draft: DraftAnalysis;
  attempts: readonly AttemptRecord[];
  blockers: Blocker[];
  unattended?: UnattendedRecord;
}

export function computeStatus(inputs: StatusInputs): Status {
  const latest = inputs.attempts.at(-1);
  const status: Status = {
    phase: phaseOf(inputs.attempts),
    version: inputs.version,
    profile: inputs.draft.profile,
    hostname: inputs.draft.hostname ?? inputs.hostHostname,
    url: inputs.url,
    configValid: inputs.draft.valid,
    attempt: inputs.attempts.length,
  };
  if (inputs.draft.mode) status.mode = inputs.draft.mode;
  if (latest?.state === "running" && latest.step) status.step = latest.step;
  if (latest) status.startedAt = latest.startedAt;
  if (latest?.finishedAt) status.finishedAt = latest.finishedAt;
  if (inputs.blockers.length > 0) status.blockers = inputs.blockers;
  if (inputs.unattended) status.unattended = inputs.unattended;
  return status;
}
