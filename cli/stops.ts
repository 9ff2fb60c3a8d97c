/** What each stop exits with: 128 + the signal's number, as a shell reports a command a signal ended. */
export const STOPS = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

export type StopSignal = keyof typeof STOPS;

/** Ctrl-C, SIGTERM (a CI job's time-out, `kill`), SIGHUP (the terminal or ssh session gone). */
export const STOP_SIGNALS = Object.keys(STOPS) as StopSignal[];

/** A stop's exit code; 130 for a reason that names none of them. */
export const exitOnSignal = (signal: unknown): number => STOPS[signal as StopSignal] ?? 130;

/**
 * Until the returned function is called, the first stop calls `stop` instead of ending the process at once (Node's
 * default, which leaves a half-written file or a temp folder behind); a second one exits at once.
 */
export function onStop(stop: (signal: StopSignal) => void): () => void {
  const first = (signal: StopSignal) => {
    release();
    STOP_SIGNALS.forEach((again) => process.once(again, (name: StopSignal) => process.exit(exitOnSignal(name))));
    stop(signal);
  };
  const release = () => STOP_SIGNALS.forEach((signal) => process.removeListener(signal, first));
  STOP_SIGNALS.forEach((signal) => process.once(signal, first));
  return release;
}
