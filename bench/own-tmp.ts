/**
 * Imported first by each bench: its temporary files (fifty state dirs, plans, a payload of GiBs) go to a folder of the
 * run's own, removed when the run exits or is stopped with Ctrl-C or SIGTERM, so that they do not pile up in /tmp.
 * Child processes inherit it as TMPDIR.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const folder = mkdtempSync(join(tmpdir(), "stratum-bench-"));
process.env.TMPDIR = folder;
process.on("exit", () => {
  try {
    rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
  } catch (err) {
    // An installer stopped by the same Ctrl-C may still be writing there: say what is left, exit as asked.
    process.stderr.write(`bench: ${folder} is left behind: ${(err as Error).message}\n`);
  }
});
for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) process.once(signal, () => process.exit(code));
