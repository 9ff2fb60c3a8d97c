import type { EventEmitter } from "node:events";
import type { Logger } from "../core/common/log.ts";
import { warmUp } from "../handlers/warm-up.ts";
import { type QuietOptions, whenQuiet } from "./when-quiet.ts";

/**
 * The warm-up of the request paths (handlers/warm-up.ts) runs at the first moment of 1.5 s without a request from the
 * banner on: past a client that connects as the banner shows and asks on without such a pause (which it would only
 * delay), past the code cache's save after a first burst of requests (which it would make larger; with no request
 * before it, the later save holds its code too), long before an operator or a fleet comes to a node that has just
 * booted and been polled for its status.
 */
export const WARM_UP: QuietOptions = { quietMs: 1_500, from: "now" };

export interface WarmUpDeps {
  /** The API, built (or being built) once the banner shows. */
  app: () => Promise<Parameters<typeof warmUp>[0]>;
  log: Logger;
  /** True once a stop was asked for: the warm-up does not start then, nor ask anything more. */
  stopping: () => boolean;
  /** The install code its requests present. */
  code: string;
}

/** `serve`'s warm-up: once, at its first quiet moment; one log line says it ran (or, as a warning, why not). */
export function warmUpWhenQuiet(server: EventEmitter, deps: WarmUpDeps, quiet: QuietOptions = WARM_UP): void {
  whenQuiet(server, "request", quiet, () => {
    if (deps.stopping()) return;
    const startedAt = performance.now();
    void deps
      .app()
      .then((app) => warmUp(app, deps.code, deps.stopping))
      .then(
        (whole) => {
          // Cut short by a stop: no line after the stop's.
          if (whole) deps.log.info("request paths warmed up", { ms: Math.round((performance.now() - startedAt) * 10) / 10 });
        },
        (err: unknown) => deps.log.warn("request paths not warmed up", { error: err instanceof Error ? err.message : String(err) }),
      );
  });
}
