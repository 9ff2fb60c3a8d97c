import type { Blocker } from "../common/errors.ts";
import { BUILT_IN_RELEASE, type ReleaseModel } from "./release-model.ts";
import type { ReleaseFile } from "./release-file.ts";

export type PayloadState =
  | { kind: "not-loaded"; detail: string }
  | { kind: "settling"; release?: ReleaseFile }
  | { kind: "verifying"; release: ReleaseFile; doneBytes: number; totalBytes: number; file?: string }
  | { kind: "invalid"; release?: ReleaseFile; detail: string }
  | { kind: "ready"; release: ReleaseFile };

/** The release file the state was judged from, if any (kept while a change settles). */
export function releaseFileOf(state: PayloadState): ReleaseFile | undefined {
  return "release" in state ? state.release : undefined;
}

/** The release installs are checked against: the payload's once read, else the built-in one. */
export function payloadRelease(state: PayloadState): ReleaseModel {
  return releaseFileOf(state)?.model ?? BUILT_IN_RELEASE;
}

function gib(bytes: number): string {
  return bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(2)} GiB` : `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
}

/** What keeps an install from starting while the payload in folder is in this state. */
export function payloadBlockers(state: PayloadState, folder: string): Blocker[] {
  switch (state.kind) {
    case "ready":
      return [];
    case "not-loaded":
      return [{ code: "PAYLOAD_NOT_LOADED", detail: state.detail }];
    case "invalid":
      return [{ code: "PAYLOAD_INVALID", detail: state.detail }];
    case "settling":
      return [{ code: "PAYLOAD_VERIFYING", detail: `The payload in ${folder} is changing (being copied?); it is checked once it has stopped changing. The install can start when the check passes.` }];
    case "verifying": {
      const percent = state.totalBytes ? Math.floor((state.doneBytes / state.totalBytes) * 100) : 100;
      return [
        {
          code: "PAYLOAD_VERIFYING",
          detail: `Checking the payload's checksums: ${gib(state.doneBytes)} of ${gib(state.totalBytes)} (${percent}%)${state.file ? `, now ${state.file}` : ""}. The install can start when it is done.`,
          progress: { doneBytes: state.doneBytes, totalBytes: state.totalBytes },
        },
      ];
    }
  }
}
