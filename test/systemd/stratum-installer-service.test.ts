import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { ROOT, tempDir } from "../helpers/installer.ts";

const UNIT = join(ROOT, "systemd/stratum-installer.service");

/** [Service]/[Unit] key → its values, in order. */
function directives(text: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const line of text.split("\n")) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (match) found.set(match[1]!, [...(found.get(match[1]!) ?? []), match[2]!]);
  }
  return found;
}

async function systemdAnalyze(): Promise<string | undefined> {
  const { stdout } = await promisify(execFile)("sh", ["-c", "command -v systemd-analyze || true"]);
  return stdout.trim() || undefined;
}

test("the unit passes systemd-analyze verify without a warning", async (t) => {
  const analyze = await systemdAnalyze();
  if (!analyze) return t.skip("systemd-analyze is missing (Debian package systemd; test/setup/ensure-systemd.sh installs it as root)");
  // verify checks that ExecStart's binary exists; this machine's node may live elsewhere than the rescue image's.
  const copy = join(await tempDir("stratum-unit-"), "stratum-installer.service");
  await writeFile(copy, (await readFile(UNIT, "utf8")).replace("ExecStart=/usr/bin/node ", `ExecStart=${process.execPath} `));
  const { stdout, stderr } = await promisify(execFile)(analyze, ["verify", "--man=no", copy]);
  assert.equal(`${stdout}${stderr}`, "");
});

test("the unit starts after the network, restarts on failure, stops firstboot through the installer, and leaves firstboot free to configure the machine", async () => {
  const unit = directives(await readFile(UNIT, "utf8"));
  assert.deepEqual(unit.get("ExecStart"), ["/usr/bin/node /opt/stratum/installer.js serve"]);
  assert.deepEqual(unit.get("After"), ["network-online.target"]);
  assert.deepEqual(unit.get("Wants"), ["network-online.target"]);
  assert.deepEqual(unit.get("Restart"), ["on-failure"]);
  assert.deepEqual(unit.get("RestartPreventExitStatus"), ["2"]);
  assert.deepEqual(unit.get("KillMode"), ["mixed"]);
  // Each would break firstboot, which runs as the installer's child (docs/service.md: The unit's choices).
  for (const name of ["ProtectSystem", "ProtectHome", "PrivateTmp", "PrivateDevices", "NoNewPrivileges", "ProtectHostname", "ProtectKernelModules", "ProtectKernelTunables", "RestrictSUIDSGID", "MemoryDenyWriteExecute", "CapabilityBoundingSet"]) {
    assert.equal(unit.get(name), undefined, name);
  }
});
