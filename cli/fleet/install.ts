import { setTimeout as sleep } from "node:timers/promises";
import { joinTokenProblem } from "../../core/cluster/join-token.ts";
import { type JoinToken, type Verdict, worthAskingAgain } from "./api.ts";
import type { Connected, Connection } from "./connect.ts";
import { NodeRun, type Outcome, type RunContext } from "./node-run.ts";
import { pool } from "./pool.ts";
import { GIVE_UP_AFTER_MS } from "./watch.ts";
import { type NodeAnswers, confirmation, nodeAnswers } from "./report.ts";

/**
 * SPEC §10.3: the init node first; once it is installed, its join token goes into every join's draft and
 * the joins install, `parallel` at a time. The joins depend on the init node only: one join failing stops
 * no other.
 */
interface FleetRun {
  outcomes: Map<string, Outcome>;
  /** Each node's verdict and report for the fleet's report, asked as its run ended (while the others go on). */
  answers: Map<string, Promise<NodeAnswers>>;
  /** The join token the joins were given, to redact. */
  joinToken?: string;
  /** The init installed, but its join token could not be read or used: the joins stopped, and its support bundle may tell why. */
  joinTokenUnusable?: true;
}

export async function installFleet(connection: Connection, ctx: RunContext, parallel: number): Promise<FleetRun> {
  const outcomes = new Map<string, Outcome>();
  const answers = new Map<string, Promise<NodeAnswers>>();
  const confirmed: Array<Promise<void>> = [];
  const ended = (c: Connected, outcome: Outcome, run: NodeRun) => {
    outcomes.set(c.node.name, outcome);
    const asked = nodeAnswers(c.api, run.verdict);
    answers.set(c.node.name, asked);
    if (outcome.kind === "installed") confirmed.push(asked.then((got) => confirm(c.node.name, outcome, run.verdict, got)));
  };
  /** An installed node's success, as the fleet read it, against its verdict and report. */
  const confirm = (name: string, outcome: Outcome, carried: Verdict | undefined, got: NodeAnswers) => {
    const said = carried ? `it said attempt ${carried.attempt} succeeded` : "its status said it is installed";
    const found = confirmation(said, got);
    if (!found) return;
    if ("unconfirmed" in found) {
      // Installed as far as it said: the summary, --json and the report say it is unconfirmed, and why.
      outcomes.set(name, { ...outcome, detail: `installed, unconfirmed: ${found.unconfirmed}` });
      return ctx.out.note(name, "warn", `${found.unconfirmed}: counted installed as ${said}, unconfirmed`);
    }
    outcomes.set(name, { ...outcome, kind: "failed", detail: found.disagrees });
    ctx.out.note(name, "error", found.disagrees);
    ctx.out.change(name, { phase: "failed" });
  };
  /** The run's outcomes once every node's success is confirmed, or not. */
  const settled = async (run: FleetRun): Promise<FleetRun> => {
    await Promise.all(confirmed);
    return run;
  };
  const init = connection.connected.find((c) => c.node.role === "init")!;
  const joins = connection.connected.filter((c) => c.node.role === "join");
  /** The joins not installed yet: stopped, saying why; one installed before this run stays counted installed. */
  const stopAll = (detail: string) => {
    for (const join of joins) {
      if (join.status.phase === "done") {
        outcomes.set(join.node.name, { kind: "installed", detail: "installed already, before this run", attempt: join.status.attempt });
        ctx.out.change(join.node.name, { phase: "done" });
        continue;
      }
      outcomes.set(join.node.name, { kind: "stopped", detail, attempt: join.status.attempt });
      ctx.out.change(join.node.name, { phase: "stopped" });
    }
  };

  const initRun = new NodeRun(init, ctx, undefined);
  const founded = await initRun.run();
  if (founded.kind !== "installed") {
    ended(init, founded, initRun);
    stopAll(`not started: the init node ${init.node.name} did not install`);
    return settled({ outcomes, answers });
  }
  // Its join token first, then its verdict and report: every join waits for both, as a join depends on the init.
  let token = connection.joinToken;
  if (!token) {
    try {
      token = await joinTokenOf(init, ctx.signal);
    } catch (error) {
      // A stop here is a stop as at any other moment of the installs: its caller says so and how to go on.
      ctx.signal.throwIfAborted();
      ended(init, founded, initRun);
      stopAll(`not started: the init node's join token cannot be read: ${(error as Error).message}`);
      return settled({ outcomes, answers, joinTokenUnusable: true });
    }
    // A token of another cluster (a node that lies, an init reused from another rack) would join the nodes there.
    if (token.cluster !== connection.cluster) {
      ended(init, founded, initRun);
      stopAll(`not started: the init node ${init.node.name}'s join token names cluster ${JSON.stringify(token.cluster)}, not the plan's cluster ${JSON.stringify(connection.cluster)}: no join was given it`);
      return settled({ outcomes, answers, joinTokenUnusable: true });
    }
    // Each join would refuse it as a field error whose hint says to copy the token by hand; never quoted (a secret).
    const malformed = joinTokenProblem(token.token);
    if (malformed) {
      ended(init, founded, initRun);
      stopAll(`not started: the init node ${init.node.name}'s join token is ${malformed.message}; no join was given it`);
      return settled({ outcomes, answers, joinTokenUnusable: true });
    }
  }
  ended(init, founded, initRun);
  // Its success confirmed by its own verdict and report before a join goes by it (SPEC §10.3: a failed node stops
  // the nodes that depend on it).
  await Promise.all(confirmed);
  if (outcomes.get(init.node.name)?.kind !== "installed") {
    stopAll(`not started: the init node ${init.node.name}'s answers disagree about its install`);
    return settled({ outcomes, answers });
  }
  if (joins.some((join) => join.status.phase !== "done")) ctx.out.note(null, "info", `${init.node.name} founded cluster ${token.cluster}: its join token goes into the joins' drafts`);
  const joinToken = token.token;
  // Each join prepared before its turn (its status read, its draft written), so that its turn begins with its
  // install: the first `parallel` now, then, once a join's install was started (or it ended without one), the one
  // `parallel` places after it (so at most `parallel` joins wait with their drafts written; an interrupted run leaves
  // at most those, each with the plan's draft).
  const runs = joins.map((join) => new NodeRun(join, ctx, joinToken));
  const prepared = new Map<number, Promise<void>>();
  const prepare = (i: number) => runs[i] && !prepared.has(i) && prepared.set(i, runs[i].prepare());
  for (let i = 0; i < Math.min(parallel, runs.length); i += 1) prepare(i);
  // What the fleet would ask of other nodes as a turn passes waits until the next install was started: the verdict
  // and report of the join whose end freed the turn, and that preparing. The handoff from one join to the next is
  // wall time of the whole run (bench/RESULTS.md).
  const unstarted = new Set(runs.keys());
  let waiting: Array<() => void> = [];
  const release = () => {
    const now = waiting;
    waiting = [];
    for (const work of now) work();
  };
  const begun = (i: number) => {
    unstarted.delete(i);
    prepare(i + parallel);
    release();
  };
  try {
    await pool(runs, parallel, async (run, i) => {
      ctx.signal.throwIfAborted();
      await prepared.get(i);
      const outcome = await run.run(() => begun(i));
      // A join that started nothing (installed before, refused): the one after it is prepared all the same.
      if (unstarted.delete(i)) prepare(i + parallel);
      waiting.push(() => ended(joins[i]!, outcome, run));
      // No install is left to start: nothing waits for one.
      if (unstarted.size === 0) release();
    });
  } finally {
    release();
    // Stopped: a join prepared ahead whose turn did not come keeps no start's mark (its install was never sent).
    for (const run of runs) run.leave();
  }
  return settled({ outcomes, answers, joinToken });
}

/** The init node's join token, asked again while the node is busy (5xx, 429) or out of reach, as a verdict is, for up to two minutes. */
async function joinTokenOf(init: Connected, signal: AbortSignal): Promise<JoinToken> {
  const since = Date.now();
  for (let tries = 0; ; tries += 1) {
    try {
      return await init.api.joinToken();
    } catch (error) {
      if (!worthAskingAgain(error) || signal.aborted || Date.now() - since > GIVE_UP_AFTER_MS) throw error;
      await sleep(250 * 2 ** Math.min(tries, 4), undefined, { signal });
    }
  }
}
