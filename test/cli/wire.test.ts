import assert from "node:assert/strict";
import { chown, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { describe, test } from "node:test";
import { NeedsOperator } from "../../core/common/errors.ts";
import { stateLayout } from "../../core/state/layout.ts";
import { stallWrites, swapFsPromise } from "../helpers/stalled-write.ts";
import { VALID_DRAFT } from "../helpers/fixtures.ts";
import { wiredNode as node } from "../helpers/services.ts";
import { tempDir } from "../helpers/installer.ts";

describe("wireServices: the one wiring serve and the in-process app share", () => {
  test("a fresh state dir: its first start, an install code kept in it, the same code at the next start", async (t) => {
    const first = await node(t);
    assert.equal(first.opened.firstStart, true);
    assert.match(first.installCode, /^[A-Z0-9]{4}(-[A-Z0-9]{4}){2}$/);
    assert.equal((await readFile(stateLayout(first.settings.stateDir).installCode, "utf8")).trim(), first.installCode);
    await first.services.stop();
    const again = await node(t, { folder: first.folder });
    assert.equal(again.opened.firstStart, false);
    assert.equal(again.installCode, first.installCode);
  });

  test("the log: JSON lines timed by the injected clock, the install code and the draft's secrets redacted", async (t) => {
    const n = await node(t);
    n.clock.advance(5_000);
    n.log.info("a line", { code: n.installCode });
    const joinToken = `STRATUM1:${"3f".repeat(32)}:zKq9TnJ4v2X8mQw1Rr7bYc5uE0aLsD3hFgH6iPkV-_o`;
    await n.services.draft.replace({ source: "structured", config: { ...VALID_DRAFT, mode: "hyperconverged-join", cluster: { name: "lab-1", joinAddress: "10.20.0.10:8443", joinToken } } }, undefined);
    n.log.warn("another", { token: joinToken });
    assert.deepEqual(JSON.parse(n.lines[0]!), { time: "2026-12-04T12:00:05.000Z", level: "info", message: "a line", code: "[redacted]" });
    assert.match(n.lines.at(-1)!, /^\{"time":"2026-12-04T12:00:05\.000Z","level":"warn","message":"another","token":.*\[redacted\]/);
    assert.ok(!n.lines.join("").includes("zKq9TnJ4v2X8mQw1Rr7bYc5uE0aLsD3hFgH6iPkV"), n.lines.join(""));
  });

  test("a link put where the state dir's log goes: said once on stderr (the journal) with what to do, not a line each; its removal said, in the log too", async (t) => {
    const folder = await tempDir("stratum-services-");
    await mkdir(join(folder, "state"), { mode: 0o700 });
    const elsewhere = join(folder, "elsewhere.log");
    await writeFile(elsewhere, "");
    const { serviceLog } = stateLayout(join(folder, "state"));
    await symlink(elsewhere, serviceLog);
    const n = await node(t, { folder });
    for (let i = 0; i < 3; i++) n.log.info("a line", { i });
    const warned = n.lines.map((line) => JSON.parse(line) as { level: string; message: string; problem?: string }).filter((line) => line.level === "warn");
    assert.deepEqual(warned.map((line) => line.message), ["the service log drops lines"]);
    assert.match(warned[0]!.problem!, /service\.log is a link: no line is written through a link .*remove it to have the lines kept there again/);
    assert.equal(await readFile(elsewhere, "utf8"), "", "nothing written through the link");
    await rm(serviceLog);
    n.log.info("after");
    const kept = (await readFile(serviceLog, "utf8")).trimEnd().split("\n").map((line) => (JSON.parse(line) as { message: string }).message);
    assert.deepEqual(kept, ["after", "the service log keeps lines again"], "the first line kept, then that the ones before it were not");
  });

  test("a first start's cleaning of interrupted writes comes before its own writes: it never takes the install code's temp file for one", async (t) => {
    // The code's write held; a cleaning that lists the state dir while the code is being made lists it then.
    const stall = stallWrites((path) => basename(path).includes("install-code"));
    const restore = swapFsPromise("readdir", (real) => (async (path: string, ...rest: unknown[]) => {
      if (basename(String(path)) === "state" && stall.opened.some((opened) => basename(opened) === "install-code")) await stall.held;
      return (real as (...args: unknown[]) => Promise<unknown>)(path, ...rest);
    }) as typeof real);
    t.after(restore);
    t.after(stall.release);
    void stall.held.then(() => setImmediate(stall.release));
    const n = await node(t);
    restore();
    assert.deepEqual(n.opened.cleanedTempFiles, [], "no temp file of this start's own is said to be an interrupted write's");
    assert.equal((await readFile(stateLayout(n.settings.stateDir).installCode, "utf8")).trim(), n.installCode);
    assert.deepEqual((await readdir(n.settings.stateDir)).filter((name) => name.endsWith(".tmp")), []);
  });

  test("a link, or a file, where the state dir's events folder goes: the start is refused naming it and what to do; nothing is read or written through it", async (t) => {
    const folder = await tempDir("stratum-services-");
    const stateDir = join(folder, "state");
    await mkdir(stateDir, { mode: 0o700 });
    const { events } = stateLayout(stateDir);
    // An attempt's events elsewhere, as a start would find the first of an install the store does not name (firstboot ran).
    const elsewhere = join(folder, "elsewhere");
    await mkdir(elsewhere, { mode: 0o755 });
    const line = `${JSON.stringify({ seq: 1, attempt: 1, time: "2026-12-04T12:00:00.000Z", type: "step.started", level: "info", message: "firstboot", step: "firstboot" })}\n`;
    await writeFile(join(elsewhere, "attempt-1.jsonl"), line);
    const refused = async (why: RegExp) =>
      assert.rejects(node(t, { folder }), (err: Error) => {
        assert.ok(err instanceof NeedsOperator, err.message);
        assert.match(err.message, why);
        return true;
      });
    await symlink(elsewhere, events);
    await refused(new RegExp(`^the state dir's events folder ${events} is a link \\(to ${elsewhere}\\): .*; remove the link .*, then start again$`));
    assert.equal(await readFile(join(elsewhere, "attempt-1.jsonl"), "utf8"), line, "nothing written through it");
    assert.equal((await stat(elsewhere)).mode & 0o777, 0o755, "what it leads to is left as it is");
    await rm(events);
    await symlink(join(folder, "gone"), events);
    await refused(new RegExp(`^the state dir's events folder ${events} is a link \\(to nowhere\\): `));
    await rm(events);
    await writeFile(events, "");
    await refused(new RegExp(`^the state dir's events folder ${events} is a file, not a folder: .*, then start again$`));
    await rm(events);
    if (process.getuid?.() === 0) {
      await mkdir(events, { mode: 0o700 });
      await chown(events, 65534, 65534);
      await refused(new RegExp(`^the state dir's events folder ${events} belongs to uid 65534, not to this user \\(uid 0\\): .*; chown it to uid 0, then start again$`));
      await rm(events, { recursive: true });
    }
    const n = await node(t, { folder });
    await n.services.stop();
  });
});
