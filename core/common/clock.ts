/**
 * Milliseconds from any origin, never stepped: what waits, timeouts and durations are measured by. A fresh node's wall
 * clock jumps at its first time sync, often by years (a dead RTC battery), and firstboot starts that sync.
 */
export type Clock = () => number;

/** The process's monotonic clock (performance.now()), for wherever a test gives none of its own. */
export const monotonic: Clock = () => performance.now();
