import assert from "node:assert/strict";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { HostFactsSchema, loadHostFactsFile, readHostFacts } from "../../../core/host/read-facts.ts";
import { DEMO_HOST_FACTS as DEMO_FIXTURE } from "../../helpers/paths.ts";

async function writeFixture(contents: string): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), "host-facts-")), "facts.json");
  await writeFile(path, contents);
  return path;
}

test("readHostFacts describes this machine as valid HostFacts", async () => {
  const facts = HostFactsSchema.parse(await readHostFacts());
  assert.ok(facts.cpuCount >= 1);
  assert.ok(facts.memoryBytes > 0);
  assert.ok(facts.interfaces.every((i) => i.name !== "lo"));
  assert.ok(facts.disks.every((d) => !/^(loop|ram|zram|sr|dm-|md)/.test(d.name)));
  assert.ok(facts.disks.every((d) => d.inUse === (d.usage !== undefined)));
});

test("loadHostFactsFile accepts the demo fixture", async () => {
  const facts = await loadHostFactsFile(DEMO_FIXTURE);
  assert.equal(facts.hostname, "node-01");
  assert.deepEqual(
    facts.disks.map((d) => [d.path, d.inUse]),
    [["/dev/sda", true], ["/dev/sdb", false], ["/dev/sdc", false], ["/dev/nvme0n1", false]],
  );
});

test("loadHostFactsFile names the file and the bad field", async () => {
  const facts = JSON.parse(await readFile(DEMO_FIXTURE, "utf8"));
  facts.disks[1].sizeBytes = "3.84 TB";
  const path = await writeFixture(JSON.stringify(facts));
  await assert.rejects(loadHostFactsFile(path), (error: Error) => {
    assert.match(error.message, new RegExp(`${path}.*disks\\[1\\]\\.sizeBytes`));
    return true;
  });
});

test("loadHostFactsFile refuses unknown keys", async () => {
  const path = await writeFixture(JSON.stringify({ ...(await loadHostFactsFile(DEMO_FIXTURE)), gpus: 2 }));
  await assert.rejects(loadHostFactsFile(path), /gpus/);
});

test("loadHostFactsFile names the file when it is not JSON or missing", async () => {
  const path = await writeFixture("{ hostname: node-01");
  await assert.rejects(loadHostFactsFile(path), (error: Error) => error.message.includes(path));
  await assert.rejects(loadHostFactsFile("/nonexistent/facts.json"), /\/nonexistent\/facts\.json/);
});
