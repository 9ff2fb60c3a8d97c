import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../helpers/installer.ts";
import { ROOT } from "../helpers/paths.ts";

const COLLECTIONS = join(ROOT, "ansible/collections");
const UNITS = join(COLLECTIONS, "ansible_collections/stratum/installer/tests/unit");
const missing = spawnSync("python3", ["--version"]).error !== undefined;

test("the collection's Python unit tests pass: the plan's rules (test/fixtures/plan-rules.json, issue 26), client.py against TLS servers of their own, api.py's pure parts, the install module's decisions", { skip: missing && "python3 is not installed" }, () => {
  const run = spawnSync("python3", ["-W", "error::ResourceWarning", "-m", "unittest", "discover", "-v", "-s", UNITS], {
    cwd: ROOT,
    env: { ...process.env, PYTHONPATH: COLLECTIONS, PYTHONDONTWRITEBYTECODE: "1" },
    encoding: "utf8",
  });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /test_each_case \(.*TheCases/);
  assert.match(run.stderr, /test_the_filter_applies_the_rules_the_table_gives_it .* ok/);
  assert.match(run.stderr, /\(.*test_client\.[\s\S]* ok/, "module_utils/client.py's tests ran");
  assert.match(run.stderr, /test_an_attempt_interrupted_at_firstboot_is_never_installed_again.* ok/, "modules/install.py's tests ran");
  assert.doesNotMatch(run.stderr, /skipped/);
});

const noDoc = spawnSync("ansible-doc", ["--version"]).error !== undefined;

test("ansible-doc renders the plan filter's documentation", { skip: noDoc && "ansible-doc is not installed" }, async () => {
  const home = await tempDir("stratum-ansible-doc-");
  const run = spawnSync("ansible-doc", ["-t", "filter", "stratum.installer.plan"], {
    cwd: join(ROOT, "ansible"),
    env: { ...process.env, ANSIBLE_HOME: home, ANSIBLE_COLLECTIONS_PATH: COLLECTIONS, ANSIBLE_NOCOLOR: "1", PYTHONDONTWRITEBYTECODE: "1" },
    encoding: "utf8",
  });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /STRATUM\.INSTALLER\.PLAN/);
  assert.match(run.stdout, /RETURN VALUES:[\s\S]*joins/);
});

test("ansible-doc renders each module's documentation (DOCUMENTATION, EXAMPLES and RETURN parse as YAML; ansible-lint does not read them)", { skip: noDoc && "ansible-doc is not installed" }, async () => {
  const home = await tempDir("stratum-ansible-doc-");
  const modules = readdirSync(join(COLLECTIONS, "ansible_collections/stratum/installer/plugins/modules"))
    .filter((file) => file.endsWith(".py") && !file.startsWith("_"))
    .map((file) => `stratum.installer.${file.slice(0, -3)}`);
  assert.ok(modules.includes("stratum.installer.install"), modules.join(", "));
  for (const module of modules) {
    const run = spawnSync("ansible-doc", ["-t", "module", module], {
      cwd: join(ROOT, "ansible"),
      env: { ...process.env, ANSIBLE_HOME: home, ANSIBLE_COLLECTIONS_PATH: COLLECTIONS, ANSIBLE_NOCOLOR: "1", PYTHONDONTWRITEBYTECODE: "1" },
      encoding: "utf8",
    });
    assert.equal(run.status, 0, `${module}: ${run.stderr}`);
    assert.doesNotMatch(run.stderr, /ERROR|WARNING/, module);
    assert.match(run.stdout, new RegExp(module.toUpperCase().replaceAll(".", "\\.")), module);
    assert.match(run.stdout, /EXAMPLES:/, module);
  }
});
