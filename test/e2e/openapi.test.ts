import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { ROOT, runCli } from "../helpers/installer.ts";

test("the generated OpenAPI document passes Redocly's recommended lint with zero errors", async () => {
  const printed = await runCli(["openapi"]);
  assert.equal(printed.code, 0);
  const folder = await mkdtemp(join(tmpdir(), "stratum-openapi-"));
  const file = join(folder, "openapi.json");
  await writeFile(file, printed.stdout);
  const { stdout, stderr } = await promisify(execFile)(join(ROOT, "node_modules/.bin/redocly"), ["lint", file, "--format", "json"], { cwd: folder }).catch((err) => err);
  const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string; severity: string }[] };
  const errors = report.problems.filter((p) => p.severity === "error");
  assert.deepEqual(errors, [], stderr);
  assert.equal(report.totals.errors, 0);
  console.log(`redocly lint: ${report.totals.errors} errors, ${report.totals.warnings} warnings (${report.problems.map((p) => p.ruleId).join(", ") || "none"})`);
});
