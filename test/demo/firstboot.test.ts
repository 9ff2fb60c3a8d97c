import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

const FIRSTBOOT = new URL("../../demo/firstboot.sh", import.meta.url).pathname;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function runFirstboot(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(FIRSTBOOT, args, { env: { ...process.env, FIRSTBOOT_DELAY: "0.01", ...env } }, (error, stdout, stderr) => {
      resolve({ code: typeof error?.code === "number" ? error.code : 0, stdout, stderr });
    });
  });
}

async function nodeYaml(interfaceLine = "interface: eno1"): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), "firstboot-")), "node.yaml");
  await writeFile(path, `mode: single-node\nnetwork:\n  ${interfaceLine}\n`);
  return path;
}

const lines = (text: string) => text.split("\n").filter(Boolean);

test("firstboot prints progress and exits 0", async () => {
  const run = await runFirstboot([await nodeYaml()]);
  assert.equal(run.code, 0);
  assert.ok(lines(run.stdout).length >= 10);
  assert.ok(lines(run.stdout).every((line) => line.startsWith("[firstboot] ")));
  assert.match(run.stdout, /configuring network on eno1/);
  assert.match(run.stderr, /warning/);
});

test("firstboot names the interface as the installer's node.yaml quotes it, without the quotes", async () => {
  for (const line of ['interface: "eno2"', "interface: 'eno2'", "interface: eno2 # the first port"]) {
    assert.match((await runFirstboot([await nodeYaml(line)])).stdout, /configuring network on eno2\n/, line);
  }
});

test("firstboot exits 3 when node.yaml is missing", async () => {
  const run = await runFirstboot(["/nonexistent/node.yaml"]);
  assert.equal(run.code, 3);
  assert.match(run.stderr, /node\.yaml not found: \/nonexistent\/node\.yaml/);
  assert.equal(run.stdout, "");
});

test("FIRSTBOOT_FAIL=1 fails part way with an error on stderr", async () => {
  const run = await runFirstboot([await nodeYaml()], { FIRSTBOOT_FAIL: "1" });
  assert.equal(run.code, 1);
  assert.ok(lines(run.stdout).length >= 3);
  assert.match(run.stderr, /error:/);
});

test("FIRSTBOOT_FAIL_HOST fails part way on the node whose node.yaml names that hostname only (quoted or not)", async () => {
  const dir = await mkdtemp(join(tmpdir(), "firstboot-"));
  const named = async (file: string, hostname: string) => {
    const path = join(dir, file);
    await writeFile(path, `mode: hyperconverged-join\nhostname: ${hostname}\nnetwork:\n  interface: eno1\n`);
    return path;
  };
  for (const [hostname, code] of [["node-02", 1], ['"node-02"', 1], ["node-021", 0], ["node-03", 0]] as const) {
    const run = await runFirstboot([await named(`${code}-${hostname.length}.yaml`, hostname)], { FIRSTBOOT_FAIL_HOST: "node-02" });
    assert.equal(run.code, code, hostname);
    if (code === 1) assert.match(run.stderr, /failed checksum verification/);
  }
});

test("FIRSTBOOT_FLOOD=1000 prints 1000 lines", async () => {
  const run = await runFirstboot([await nodeYaml()], { FIRSTBOOT_FLOOD: "1000" });
  assert.equal(run.code, 0);
  assert.equal(lines(run.stdout).length, 1000);
  assert.equal(lines(run.stdout).at(-1), "[firstboot] flood line 1000 of 1000");
});
