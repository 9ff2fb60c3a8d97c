import assert from "node:assert/strict";
import { chmod, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import type { NewEvent } from "../../../core/attempts/events.ts";
import type { StepContext } from "../../../core/attempts/steps/context.ts";
import { MAX_LINE_BYTES, runFirstboot } from "../../../core/attempts/steps/firstboot.ts";
import type { AttemptRecord } from "../../../core/state/records.ts";
import { createRedactor } from "../../../core/secrets/index.ts";
import { tempDir, waitFor } from "../../helpers/installer.ts";

const SECRET = "jt-SECRET-4711-token";

function context(signal = new AbortController().signal) {
  const events: Omit<NewEvent, "step">[] = [];
  const ctx: StepContext = { emit: (e) => events.push(e), backlogged: () => undefined, redactor: createRedactor(() => [SECRET]), now: () => new Date(), signal };
  return { ctx, events };
}

async function script(body: string): Promise<{ path: string; folder: string }> {
  const folder = await tempDir();
  const path = join(folder, "firstboot");
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return { path, folder };
}

function run(ctx: StepContext, executable: string, record: Pick<AttemptRecord, "firstbootTail" | "firstbootGroup"> = { firstbootTail: [] }, persist = async () => {}) {
  return runFirstboot(ctx, { executable, nodeYamlPath: "/dev/null", record, persist });
}

test("a secret that straddles the cut is redacted whole, never shown in part", async () => {
  const { path } = await script(`printf '%${MAX_LINE_BYTES - 6}s${SECRET}%s\\n' '' 'tail'`);
  const { ctx, events } = context();
  await run(ctx, path);
  assert.equal(events.length, 1);
  const [event] = events;
  assert.ok(!event!.message.includes(SECRET.slice(0, 4)), event!.message.slice(-80));
  assert.match(event!.message, /^ +\[redac … \[cut \d+ bytes\]$/);
  assert.ok(Buffer.byteLength(event!.message) <= MAX_LINE_BYTES + 30);
});

test("the group is recorded and persisted while firstboot runs, and cleared once it is stopped", async () => {
  const { path } = await script("sleep 0.2");
  const { ctx } = context();
  const record: Pick<AttemptRecord, "firstbootTail" | "firstbootGroup"> = { firstbootTail: [] };
  const persisted: unknown[] = [];
  await run(ctx, path, record, async () => {
    persisted.push(structuredClone(record.firstbootGroup));
  });
  assert.equal(persisted.length, 1);
  assert.equal(typeof (persisted[0] as any).pid, "number");
  assert.equal(typeof (persisted[0] as any).startTime, "number");
  assert.equal(record.firstbootGroup, undefined);
});

test("stopping the installer stops the whole group, then the step ends with the stop's reason", async () => {
  const { path, folder } = await script(`trap '' TERM; echo $$ > "$(dirname "$0")/pid"; sleep 60 & wait`);
  const abort = new AbortController();
  const { ctx, events } = context(abort.signal);
  const running = run(ctx, path);
  await waitFor("firstboot to start", async () => ((await readFile(join(folder, "pid"), "utf8").catch(() => "")) ? true : undefined));
  abort.abort(new Error("installer stopping"));
  await assert.rejects(running, /installer stopping/);
  const stopped = events.find((e) => e.data?.stopped)!;
  assert.match(stopped.message, /^stopped 2 processes of firstboot as the installer stops: \d+ firstboot, \d+ sleep \(SIGTERM was ignored: SIGKILL after 3 s\)$/);
});

test("a firstboot that cannot be run fails the step, saying why", async () => {
  const { ctx } = context();
  await assert.rejects(run(ctx, "/nonexistent/firstboot"), /^StepFailure: firstboot exited with code 127; last output: .*\/nonexistent\/firstboot: not found$/);
});

test("firstboot starts only once its group is persisted; if that fails it never starts", async () => {
  const { path, folder } = await script(`touch "$(dirname "$0")/ran"`);
  const { ctx } = context();
  await assert.rejects(run(ctx, path, { firstbootTail: [] }, async () => {
    throw new Error("ENOSPC: no space left on device");
  }), /ENOSPC/);
  assert.equal(await readFile(join(folder, "ran")).catch(() => undefined), undefined);
});
