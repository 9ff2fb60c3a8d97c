import { analyzeBody, toBody } from "../draft/analysis.ts";
import type { HostFacts } from "../host/facts.ts";
import { loadHostFactsFile, readHostFacts } from "../host/read-facts.ts";
import { payloadBlockers, payloadRelease, releaseFileOf, type PayloadState } from "../payload/state.ts";
import { loadRelease, sizeProblem } from "../payload/verify.ts";
import { computeStatus } from "../service/status.ts";
import { lockHolder } from "../fs/state-lock.ts";
import { stateLayout } from "../state/layout.ts";
import type { StateSnapshot } from "./state.ts";

/**
 * Whether the service runs, by the state dir's lock, in the manifest's words: a bundle made after a crash (kill -9,
 * an OOM kill) shows the attempt it cut short as still installing, until the next start records it INTERRUPTED.
 */
export async function serviceFact(stateDir: string, phase: unknown): Promise<string> {
  const holder = await lockHolder(stateLayout(stateDir).lock);
  if (holder?.running) return `running (pid ${holder.pid})`;
  const cut = phase === "installing" ? ": the attempt shown as installing was cut short, and the service's next start records it INTERRUPTED" : "";
  if (holder) return `not running: its lock names pid ${holder.pid}, which is gone (a crash or kill -9)${cut}`;
  return `not running${cut}`;
}

/** The payload's verification as the bundle shows it: its state, its release and images, and how far it was checked. */
export function payloadFacts(state: PayloadState, folder: string, checked: string): unknown {
  const release = releaseFileOf(state);
  return {
    folder,
    state: state.kind,
    checked,
    ...("detail" in state ? { detail: state.detail } : {}),
    ...(state.kind === "verifying" ? { doneBytes: state.doneBytes, totalBytes: state.totalBytes } : {}),
    ...(release ? { release: release.model.release, images: release.images } : {}),
    blockers: payloadBlockers(state, folder),
  };
}

/** The payload as the folder shows it without the service: release.yaml and the images' sizes; checksums are the service's work. */
async function offlinePayload(folder: string): Promise<PayloadState> {
  const loaded = await loadRelease(folder);
  if (loaded.kind !== "ready") return loaded;
  const problem = await sizeProblem(folder, loaded.release);
  return problem ? { kind: "invalid", release: loaded.release, detail: problem } : loaded;
}

/** What the bundle shows of a node whose service is not asked: status, host and payload, from the state dir and the machine. */
export async function offlineFacts(state: StateSnapshot, options: { version: string; payload: string; hostFacts?: string }): Promise<{ status: unknown; host: HostFacts; payload: unknown }> {
  const host = await (options.hostFacts ? loadHostFactsFile(options.hostFacts) : readHostFacts());
  const payloadState = await offlinePayload(options.payload);
  const payload = payloadFacts(payloadState, options.payload, "offline: release.yaml and each image's size (checksums are checked by the running service)");
  const { store } = state;
  const status = store
    ? computeStatus({
        version: options.version,
        url: "(not known: the bundle was made from the state dir)",
        hostHostname: host.hostname,
        draft: analyzeBody(toBody(store.draft), { host, release: payloadRelease(payloadState) }),
        attempts: store.attempts,
        blockers: payloadBlockers(payloadState, options.payload),
        unattended: store.unattended,
      })
    : { problem: state.storeProblem ?? "no store yet: the service has not started on this state dir" };
  return { status, host, payload };
}
