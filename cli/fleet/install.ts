import type { Status } from "./api.ts";
import type { Connection, Connected } from "./connect.ts";
import { type Outcome, type RunContext, type StatusAhead, runNode } from "./node-run.ts";
import { pool } from "./pool.ts";

/**
 * SPEC §10.3: the init node first; once it is installed, its join token goes into every join's draft and
 * the joins install, `parallel` at a time. The joins depend on the init node only: one join failing stops
 * no other.
 */
interface FleetRun {
  outcomes: Map<string, Outcome>;
  /** The join token the joins were given, to redact. */
  joinToken?: string;
}

/**
 * Each join's status read before its turn, so that its turn begins with its draft: the first `parallel` once the
 * init node is installed, then, as a join starts, the one after it. Reads only; a node's writes wait for its turn.
 */
function readAhead(joins: Connected[]): { ahead(index: number): void; of(index: number): StatusAhead | undefined } {
  const read = new Map<number, StatusAhead>();
  return {
    ahead(index) {
      const join = joins[index];
      if (!join || read.has(index)) return;
      const status: Promise<Status> = join.api.status();
      status.catch(() => undefined);
      read.set(index, { status, at: performance.now() });
    },
    of: (index) => read.get(index),
  };
}

export async function installFleet(connection: Connection, ctx: RunContext, parallel: number): Promise<FleetRun> {
  const outcomes = new Map<string, Outcome>();
  const init = connection.connected.find((c) => c.node.role === "init")!;
  const joins = connection.connected.filter((c) => c.node.role === "join");
  const stopAll = (detail: string) => {
    for (const join of joins) {
      outcomes.set(join.node.name, { kind: "stopped", detail, attempt: join.status.attempt });
      ctx.out.change(join.node.name, { phase: "stopped" });
    }
  };

  const founded = await runNode(init, ctx);
  outcomes.set(init.node.name, founded);
  if (founded.kind !== "installed") {
    stopAll(`not started: the init node ${init.node.name} did not install`);
    return { outcomes };
  }
  const statuses = readAhead(joins);
  for (let i = 0; i < parallel; i += 1) statuses.ahead(i);
  let token = connection.joinToken;
  if (!token) {
    try {
      token = await init.api.joinToken();
    } catch (error) {
      stopAll(`not started: the init node's join token cannot be read: ${(error as Error).message}`);
      return { outcomes };
    }
  }
  if (joins.some((join) => join.status.phase !== "done")) ctx.out.note(null, "info", `${init.node.name} founded cluster ${token.cluster}: its join token goes into the joins' drafts`);
  const joinToken = token.token;
  await pool(joins, parallel, async (join: Connected, i) => {
    ctx.signal.throwIfAborted();
    statuses.ahead(i + 1);
    outcomes.set(join.node.name, await runNode(join, ctx, joinToken, statuses.of(i)));
  });
  return { outcomes, joinToken };
}
