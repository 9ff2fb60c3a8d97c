import { InstallerError } from "../common/errors.ts";
import { headerMatcher } from "./install-code.ts";
import { LOCKOUT_POLICY, clientAddress, gate, recordFailure, recordSuccess } from "./lockout.ts";
import { isStorageError } from "../fs/storage-error.ts";
import { retryWhileStorageRefuses, type RetryWait } from "../fs/storage-retry.ts";
import type { Logger, Origin } from "../common/log.ts";
import type { LockoutState } from "../state/records.ts";
import type { Slice } from "../state/store.ts";

export interface Authenticator {
  /**
   * Throws UNAUTHORIZED or TOO_MANY_ATTEMPTS, at once or (a wrong code, once counted and saved) from
   * the promise it returns. Returns nothing when the request may go on at once, which is the right
   * code's usual case: the request then needs no await.
   */
  authorize(origin: Origin, authorization: string | undefined): void | Promise<void>;
  /** Ends the retries of a count the state dir refused (the service stops). */
  stop(): void;
}

interface AuthenticatorDeps {
  lockout: Slice<LockoutState>;
  installCode: string;
  now: () => Date;
  log: Logger;
  /** Waits before a retry of a refused count (core/fs/storage-retry.ts). */
  wait?: RetryWait;
}

export function createAuthenticator({ lockout, installCode, now, log, wait }: AuthenticatorDeps): Authenticator {
  const matches = headerMatcher(installCode);
  // On a full disk the counts hold in memory (a guesser is still locked out) and are written once the disk takes
  // them: by the next write of the store, or by this one's retries, so that a restart does not forget them.
  let retrying = false;
  const stopped = new AbortController();
  const retry = async () => {
    retrying = true;
    // A state dir gone is made again only by a restart, which starts from the disk's counts.
    const failed = await retryWhileStorageRefuses(() => lockout.save(), stopped.signal, wait);
    if (failed) log.error("saving the lockout counts failed", { error: String(failed) });
    retrying = false;
  };
  const persist = () =>
    lockout.save().catch((err: unknown) => {
      if (!isStorageError(err)) return Promise.reject(err);
      if (!retrying && !stopped.signal.aborted) void retry();
    });

  /**
   * A refusal says whose wrong codes it is for. Past the global budget an address that sent a wrong code is held off
   * until the count falls, even with the right code: answering its codes would let a guesser with many addresses
   * go on guessing. Addresses that sent none are answered as usual, and the detail says so.
   */
  const tooMany = ({ retryAfterSeconds, global }: { retryAfterSeconds: number; global?: true }) =>
    new InstallerError({
      code: "TOO_MANY_ATTEMPTS",
      detail: global
        ? `${LOCKOUT_POLICY.globalBudget} or more wrong install codes came from all addresses together within the last hour (someone may be guessing): until that count falls, an address that sent a wrong code is refused, even with the right code; try again in ${retryAfterSeconds} s, or from an address that has sent no wrong code (it is answered as usual). The code is in the installer's banner and in \`node installer.js code\` on the node.`
        : `Too many wrong install codes from this address; try again in ${retryAfterSeconds} s. The code is in the installer's banner and in \`node installer.js code\` on the node.`,
      retryAfterSeconds,
    });

  /**
   * A wrong code names the address and its count, and the lock it earns when one begins. The
   * refusals during a lock are not logged: a guesser would flood the log.
   */
  const logFailure = (origin: Origin, at: number, refusedFor: number | undefined) => {
    const record = lockout.get().addresses[origin.client];
    const failures = record?.failures;
    log.warn("wrong install code", { ...origin, failures });
    const locked = record?.lockedUntil !== undefined && record.lockedUntil > at;
    const until = locked ? record.lockedUntil : refusedFor !== undefined ? at + refusedFor * 1000 : undefined;
    if (until !== undefined) log.warn("client locked out", { ...origin, failures, until: new Date(until).toISOString() });
  };

  /** A wrong code: counted and saved before the answer, so a restart does not forget it. */
  const refuse = async (origin: Origin, at: number): Promise<never> => {
    const answer = recordFailure(lockout.get(), origin.client, at);
    await persist();
    logFailure(origin, at, answer.allowed ? undefined : answer.retryAfterSeconds);
    if (!answer.allowed) throw tooMany(answer);
    throw new InstallerError({ code: "UNAUTHORIZED", detail: "The install code is wrong. Check the installer's banner or run `node installer.js code` on the node." });
  };

  return {
    stop: () => stopped.abort(),
    authorize(origin, authorization) {
      const address = clientAddress(origin.client);
      // An address without a wrong code on record passes the gate (its answer for it): no clock read, no record made.
      const at = lockout.get().addresses[address] === undefined ? undefined : now().getTime();
      if (at !== undefined) {
        const gated = gate(lockout.get(), address, at);
        if (!gated.allowed) throw tooMany(gated);
      }
      const matched = matches(authorization);
      if (matched === undefined) {
        throw new InstallerError({
          code: "UNAUTHORIZED",
          detail: "Send the install code as `Authorization: Bearer <code>`; it is shown in the installer's banner and by `node installer.js code`.",
        });
      }
      if (matched) return at !== undefined && recordSuccess(lockout.get(), address) ? persist() : undefined;
      return refuse({ ...origin, client: address }, at ?? now().getTime());
    },
  };
}
