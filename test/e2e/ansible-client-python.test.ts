import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT } from "../helpers/installer.ts";

const TESTS = join(ROOT, "ansible/collections/ansible_collections/stratum/installer/tests/unit/plugins/module_utils");
const missing = spawnSync("python3", ["--version"]).status !== 0;

test("the collection's module_utils pass their Python tests: client.py against TLS servers of their own, api.py's pure parts", { skip: missing && "python3 is not installed" }, async () => {
  const proc = spawn("python3", ["-W", "error::ResourceWarning", "-m", "unittest", "-v", "test_client", "test_api"], { cwd: TESTS, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  proc.stdout.on("data", (d) => (output += d));
  proc.stderr.on("data", (d) => (output += d));
  const exit = await new Promise<number | null>((resolve) => proc.on("close", resolve));
  assert.equal(exit, 0, output);
  assert.match(output, /^Ran \d+ tests/m);
  assert.doesNotMatch(output, /skipped/, output);
});
