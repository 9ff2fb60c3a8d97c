import assert from "node:assert/strict";
import { test } from "node:test";
import { LOCKOUT_POLICY, clientAddress, gate, recordFailure, recordSuccess } from "../../../core/access/lockout.ts";
import type { LockoutState } from "../../../core/state/records.ts";

const fresh = (): LockoutState => ({ addresses: {}, globalFailures: [] });
const T0 = 1_700_000_000_000;

test("five wrong codes are answered 401; the address is then locked for 30 s", () => {
  const state = fresh();
  for (let i = 0; i < 5; i++) assert.deepEqual(recordFailure(state, "10.0.0.1", T0 + i), { allowed: true });
  assert.deepEqual(gate(state, "10.0.0.1", T0 + 10), { allowed: false, retryAfterSeconds: 30 });
  assert.deepEqual(gate(state, "10.0.0.2", T0 + 10), { allowed: true }, "another address is not locked");
  assert.deepEqual(gate(state, "10.0.0.1", T0 + 4 + 30_000), { allowed: true }, "the lock passes");
});

test("each further wrong code doubles the lock, capped at 15 minutes", () => {
  const state = fresh();
  let now = T0;
  for (let i = 0; i < 5; i++) recordFailure(state, "a", now);
  const seen: number[] = [];
  for (let i = 0; i < 8; i++) {
    now = state.addresses.a!.lockedUntil! + 1;
    const answer = recordFailure(state, "a", now);
    assert.equal(answer.allowed, false);
    if (!answer.allowed) seen.push(answer.retryAfterSeconds);
  }
  assert.deepEqual(seen, [60, 120, 240, 480, 900, 900, 900, 900]);
});

test("a right code clears the address's count", () => {
  const state = fresh();
  for (let i = 0; i < 4; i++) recordFailure(state, "a", T0);
  assert.equal(recordSuccess(state, "a"), true);
  for (let i = 0; i < 4; i++) assert.equal(recordFailure(state, "a", T0).allowed, true);
  assert.equal(recordSuccess(state, "b"), false, "nothing to clear, nothing to write");
});

test("past the global budget every further wrong code is answered 429, but a clean address still gets in", () => {
  const state = fresh();
  for (let i = 0; i < LOCKOUT_POLICY.globalBudget; i++) {
    assert.equal(recordFailure(state, `10.1.${Math.floor(i / 200)}.${i % 200}`, T0 + i).allowed, true);
  }
  const answer = recordFailure(state, "10.9.9.9", T0 + 200);
  assert.equal(answer.allowed, false);
  assert.equal(!answer.allowed && answer.global, true, "refused for all addresses' wrong codes, not its own");
  assert.deepEqual(gate(state, "10.9.9.9", T0 + 300).allowed, false, "an address that guessed wrong is held off");
  assert.deepEqual(gate(state, "192.0.2.50", T0 + 300), { allowed: true }, "the console's own address stays usable");
  assert.deepEqual(gate(state, "10.9.9.9", T0 + LOCKOUT_POLICY.globalWindowMs + 500), { allowed: true }, "the window passes");
});

test("past the global budget, Retry-After is when the count within the hour falls under the budget again: as many of the oldest gone as it is over", () => {
  const state = fresh();
  // One wrong code a second from 100 addresses, then one more 100 s later: 101 in the hour.
  for (let i = 0; i < LOCKOUT_POLICY.globalBudget; i++) recordFailure(state, `10.1.0.${i}`, T0 + i * 1000);
  const last = T0 + 200_000;
  // 101 with it: two must leave the hour, the second at T0 + 1 s + 1 h.
  assert.deepEqual(recordFailure(state, "10.9.9.9", last), { allowed: false, retryAfterSeconds: 3401, global: true });
  assert.deepEqual(gate(state, "10.9.9.9", last), { allowed: false, retryAfterSeconds: 3401, global: true });
  assert.equal(gate(state, "10.9.9.9", T0 + LOCKOUT_POLICY.globalWindowMs + 1).allowed, false, "not when only the oldest has left");
  assert.deepEqual(gate(state, "10.9.9.9", T0 + 1000 + LOCKOUT_POLICY.globalWindowMs + 1), { allowed: true }, "then it is let through");
});

test("the tracked state stays bounded", () => {
  const state = fresh();
  for (let i = 0; i < 1000; i++) recordFailure(state, `a${i}`, T0 + i);
  assert.ok(state.globalFailures.length <= LOCKOUT_POLICY.globalBudget + 1);
});

test("an IPv4 client is one address, plain or IPv4-mapped; other addresses stay as they are", () => {
  for (const [remote, client] of [
    ["::ffff:127.0.0.1", "127.0.0.1"],
    ["::FFFF:10.20.0.11", "10.20.0.11"],
    ["10.20.0.11", "10.20.0.11"],
    ["::1", "::1"],
    ["2001:db8::ffff:10.0.0.1", "2001:db8::ffff:10.0.0.1"],
    ["::ffff:7f00:1", "::ffff:7f00:1"],
    ["unknown", "unknown"],
  ]) {
    assert.equal(clientAddress(remote!), client, remote);
  }
});

test("a clock stepped back (a node's RTC hours ahead until its first time sync) holds no lock past its cap from now: not the address's 15 minutes, not the global hour", () => {
  const AHEAD = 9 * 60 * 60 * 1000;
  const state = fresh();
  for (let i = 0; i < 6; i++) recordFailure(state, "a", T0 + AHEAD + i);
  for (let i = 0; i < LOCKOUT_POLICY.globalBudget; i++) recordFailure(state, `10.0.${Math.floor(i / 200)}.${i % 200}`, T0 + AHEAD);
  // The step back: now is T0.
  const locked = gate(state, "a", T0);
  assert.equal(locked.allowed, false);
  assert.ok(!locked.allowed && locked.retryAfterSeconds <= LOCKOUT_POLICY.maxLockSeconds, JSON.stringify(locked));
  const global = gate(state, "10.0.0.1", T0);
  assert.ok(!global.allowed && global.retryAfterSeconds <= LOCKOUT_POLICY.globalWindowMs / 1000, JSON.stringify(global));
  assert.deepEqual(gate(state, "a", T0 + LOCKOUT_POLICY.globalWindowMs + 1), { allowed: true }, "an hour later by the stepped clock, it is over");
  // An address's record, once seen by the stepped clock, is forgotten a day after that, not nine hours later.
  gate(state, "10.0.0.2", T0);
  assert.equal(gate(state, "10.0.0.2", T0 + LOCKOUT_POLICY.forgetAfterMs + 1).allowed, true);
  assert.equal(state.addresses["10.0.0.2"], undefined);
});
