import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { writeFile } from "node:fs/promises";
import { test } from "node:test";
import { startTimeOf } from "../../../core/process/group.ts";
import { stateLayout } from "../../../core/state/layout.ts";
import { serviceFact } from "../../../core/support/index.ts";
import { tempDir } from "../../helpers/installer.ts";

test("the manifest says whether the service runs, by the state dir's lock; after a crash, that an installing attempt was cut short", async (t) => {
  const dir = await tempDir("stratum-support-service-");
  const lock = stateLayout(dir).lock;
  assert.equal(await serviceFact(dir, "configuring"), "not running");
  assert.match(await serviceFact(dir, "installing"), /^not running: the attempt shown as installing was cut short, .*INTERRUPTED$/);

  const gone = spawn(process.execPath, ["-e", "0"]);
  await once(gone, "exit");
  await writeFile(lock, `${gone.pid}\n`);
  assert.match(await serviceFact(dir, "installing"), new RegExp(`^not running: its lock names pid ${gone.pid}, which is gone \\(a crash or kill -9\\): the attempt shown as installing was cut short`));
  assert.equal(await serviceFact(dir, "done"), `not running: its lock names pid ${gone.pid}, which is gone (a crash or kill -9)`);

  const alive = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"]);
  t.after(() => alive.kill("SIGKILL"));
  await once(alive, "spawn");
  await writeFile(lock, `${alive.pid} ${startTimeOf(alive.pid!)}\n`);
  assert.equal(await serviceFact(dir, "installing"), `running (pid ${alive.pid})`);
});
