import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cp } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT } from "../helpers/paths.ts";
import { tempDir } from "../helpers/installer.ts";

const missing = spawnSync("ansible-lint", ["--version"]).error !== undefined;

test(
  "ansible-lint passes on the playbooks and the stratum.installer collection (ansible/.ansible-lint, issue 26)",
  { skip: missing && "ansible-lint is not installed (test/setup/ensure-ansible.sh installs Debian's ansible-lint when run as root)" },
  async () => {
    const home = await tempDir("stratum-ansible-lint-");
    const run = spawnSync("ansible-lint", ["--nocolor"], {
      cwd: join(ROOT, "ansible"),
      env: { ...process.env, ANSIBLE_HOME: join(home, "ansible"), ANSIBLE_LOCAL_TEMP: join(home, "tmp"), NO_COLOR: "1" },
      encoding: "utf8",
      timeout: 300_000,
    });
    const said = `${run.stdout}\n${run.stderr}`;
    assert.equal(run.status, 0, said);
    assert.match(said, /Passed with production profile: 0 failure\(s\), 0 warning\(s\)/);
    for (const file of ["install-cluster.yml", "support-bundle.yml"]) assert.doesNotMatch(said, new RegExp(`^${file}:\\d+`, "m"));
  },
);

const noAnsibleTest = spawnSync("ansible-test", ["--version"]).error !== undefined;
/** ansible-test's sanity tests that run offline: the rest (validate-modules, pep8, yamllint, import…) install their
 * tools with pip into venvs of their own, from the network. */
const OFFLINE_SANITY = ["action-plugin-docs", "compile", "empty-init", "future-import-boilerplate", "metaclass-boilerplate", "line-endings", "no-smart-quotes", "shebang", "symlinks", "use-argspec-type-path", "replace-urlopen", "no-main-display"];

test(
  "ansible-test sanity's offline tests pass on the collection, its modules declared Python 3 (tests/config.yml)",
  { skip: noAnsibleTest && "ansible-test is not installed (Debian's ansible-core has it)" },
  async () => {
    // ansible-test runs from ansible_collections/NAMESPACE/NAME; a copy of the collection there, and a HOME of its own
    // (it keeps a cache in ~/.ansible/test).
    const home = await tempDir("stratum-ansible-test-");
    const copy = join(home, "ansible_collections/stratum/installer");
    await cp(join(ROOT, "ansible/collections/ansible_collections/stratum/installer"), copy, { recursive: true, filter: (path) => !path.includes("__pycache__") });
    // One Python, this machine's python3: "default" tries every version the modules allow, found or not.
    const python = spawnSync("python3", ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"], { encoding: "utf8" }).stdout.trim();
    const run = spawnSync("ansible-test", ["sanity", "--python", python, ...OFFLINE_SANITY.flatMap((name) => ["--test", name])], {
      cwd: copy,
      env: { ...process.env, HOME: home, ANSIBLE_HOME: join(home, "ansible"), NO_COLOR: "1", PYTHONDONTWRITEBYTECODE: "1" },
      encoding: "utf8",
      timeout: 300_000,
    });
    const said = `${run.stdout}\n${run.stderr}`;
    assert.equal(run.status, 0, said);
    for (const name of OFFLINE_SANITY) assert.match(said, new RegExp(`Running sanity test "${name}"`));
  },
);
