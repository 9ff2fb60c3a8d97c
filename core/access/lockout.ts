/** Brute-force protection for the install code (SPEC §3). Pure: state in, decision out; the caller persists. */
import type { AddressRecord, LockoutState } from "../state/records.ts";

export const LOCKOUT_POLICY = {
  freeFailures: 5,
  firstLockSeconds: 30,
  maxLockSeconds: 15 * 60,
  globalWindowMs: 60 * 60 * 1000,
  globalBudget: 100,
  forgetAfterMs: 24 * 60 * 60 * 1000,
  maxTrackedAddresses: 10_000,
} as const;

/** Refused: for this address's own wrong codes, or (`global`) because the wrong codes from all addresses spent the budget. */
type Gate = { allowed: true } | { allowed: false; retryAfterSeconds: number; global?: true };

function secondsUntil(until: number, now: number): number {
  return Math.max(1, Math.ceil((until - now) / 1000));
}

function pruneGlobal(state: LockoutState, now: number): void {
  const since = now - LOCKOUT_POLICY.globalWindowMs;
  // A wrong code "from the future" is of a clock since stepped back: counted as now's, it leaves the window within the hour.
  const recent = state.globalFailures.filter((t) => t > since).map((t) => Math.min(t, now));
  state.globalFailures = recent.slice(-(LOCKOUT_POLICY.globalBudget + 1));
}

function globalExhausted(state: LockoutState, now: number): boolean {
  pruneGlobal(state, now);
  return state.globalFailures.length >= LOCKOUT_POLICY.globalBudget;
}

/** Until the count within the window falls under the budget: as many of the oldest must leave it as it is over. */
function globalRetryAfter(state: LockoutState, now: number): number {
  const leaving = state.globalFailures[state.globalFailures.length - LOCKOUT_POLICY.globalBudget] ?? now;
  return secondsUntil(leaving + LOCKOUT_POLICY.globalWindowMs, now);
}

function liveRecord(state: LockoutState, address: string, now: number): AddressRecord | undefined {
  const record = state.addresses[address];
  // The clock stepped back (a node's RTC ahead until its first time sync; the counts outlive a restart): a lock
  // lasts no longer than its cap from now, and a wrong code "from the future" counts as now's.
  if (record) {
    record.lastFailureAt = Math.min(record.lastFailureAt, now);
    if (record.lockedUntil !== undefined) record.lockedUntil = Math.min(record.lockedUntil, now + LOCKOUT_POLICY.maxLockSeconds * 1000);
  }
  if (record && now - record.lastFailureAt > LOCKOUT_POLICY.forgetAfterMs && !(record.lockedUntil && record.lockedUntil > now)) {
    delete state.addresses[address];
    return undefined;
  }
  return record;
}

/** A dual-stack ([::]) listener sees an IPv4 client as ::ffff:a.b.c.d: one client, one count, whatever the listener. */
export function clientAddress(remoteAddress: string): string {
  // Asked twice a request: an address that does not begin with "::" is given back without the pattern.
  if (!remoteAddress.startsWith("::")) return remoteAddress;
  return /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(remoteAddress)?.[1] ?? remoteAddress;
}

/** Before the code is looked at: a locked-out address is refused whatever it sends. */
export function gate(state: LockoutState, address: string, now: number): Gate {
  const record = liveRecord(state, address, now);
  if (record?.lockedUntil && record.lockedUntil > now) {
    return { allowed: false, retryAfterSeconds: secondsUntil(record.lockedUntil, now) };
  }
  if (record && globalExhausted(state, now)) {
    return { allowed: false, retryAfterSeconds: globalRetryAfter(state, now), global: true };
  }
  return { allowed: true };
}

/** A wrong code: counts it and says whether to answer 401 or 429. */
export function recordFailure(state: LockoutState, address: string, now: number): Gate {
  const record = liveRecord(state, address, now) ?? { failures: 0, lastFailureAt: now };
  record.failures += 1;
  record.lastFailureAt = now;
  const beyond = record.failures - LOCKOUT_POLICY.freeFailures;
  if (beyond >= 0) {
    const seconds = Math.min(LOCKOUT_POLICY.firstLockSeconds * 2 ** beyond, LOCKOUT_POLICY.maxLockSeconds);
    record.lockedUntil = now + seconds * 1000;
  }
  state.addresses[address] = record;
  evictOldest(state);
  const exhaustedBefore = globalExhausted(state, now);
  state.globalFailures.push(now);
  pruneGlobal(state, now);
  if (exhaustedBefore) return { allowed: false, retryAfterSeconds: globalRetryAfter(state, now), global: true };
  if (beyond > 0 && record.lockedUntil) return { allowed: false, retryAfterSeconds: secondsUntil(record.lockedUntil, now) };
  return { allowed: true };
}

export function recordSuccess(state: LockoutState, address: string): boolean {
  if (!(address in state.addresses)) return false;
  delete state.addresses[address];
  return true;
}

function evictOldest(state: LockoutState): void {
  const entries = Object.entries(state.addresses);
  if (entries.length <= LOCKOUT_POLICY.maxTrackedAddresses) return;
  entries.sort(([, a], [, b]) => a.lastFailureAt - b.lastFailureAt);
  for (const [address] of entries.slice(0, entries.length - LOCKOUT_POLICY.maxTrackedAddresses)) delete state.addresses[address];
}
