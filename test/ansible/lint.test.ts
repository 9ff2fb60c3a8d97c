import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
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
