import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { hostname, networkInterfaces } from "node:os";
import { cp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { basename } from "node:path";
import { test } from "node:test";
import { NeedsOperator } from "../../../core/common/errors.ts";
import { loadTls } from "../../../core/access/tls-files.ts";
import { stateLayout } from "../../../core/state/layout.ts";
import { openStore } from "../../../core/state/store.ts";
import { tempDir } from "../../helpers/installer.ts";
import { stallWrites } from "../../helpers/stalled-write.ts";

const now = () => new Date();

test("the state dir's own pair, made at the first start, is reused as it is", async () => {
  const stateDir = await tempDir();
  const first = await loadTls(stateDir, {});
  const again = await loadTls(stateDir, {});
  assert.deepEqual([first.source, again.source], ["generated", "reused"]);
  assert.equal(again.fingerprint, first.fingerprint);
});

test("a damaged pair in the state dir stops the start naming the file and what to do, not OpenSSL's words; nothing is overwritten (clients pin its fingerprint)", async () => {
  const stateDir = await tempDir();
  const { tlsCert, tlsKey } = stateLayout(stateDir);
  await loadTls(stateDir, {});
  const { keyPem: otherKey } = await loadTls(await tempDir(), {}).then((t) => ({ keyPem: t.key }));
  const goodKey = await readFile(tlsKey, "utf8");
  const goodCert = await readFile(tlsCert, "utf8");
  for (const [what, cert, key, said] of [
    ["a certificate that is garbage", "garbage\n", goodKey, `${tlsCert} holds no PEM certificate`],
    ["a key that is garbage", goodCert, "garbage\n", `${tlsKey} holds no PEM private key`],
    ["a key of another certificate", goodCert, otherKey, `${tlsKey} is not the key of ${tlsCert}`],
  ] as const) {
    await writeFile(tlsCert, cert);
    await writeFile(tlsKey, key);
    await assert.rejects(loadTls(stateDir, {}), (err: Error) => {
      assert.ok(err instanceof NeedsOperator, what);
      assert.ok(err.message.startsWith(`the state dir's TLS pair is damaged: ${said}`), `${what}: ${err.message}`);
      assert.match(err.message, /restore both files from a backup, or remove both so that the installer makes a new pair \(its fingerprint changes: plans and clients that pin it must be told\)$/);
      return true;
    });
    assert.equal(await readFile(tlsCert, "utf8"), cert, `${what}: left as it is`);
  }
});

test("half a pair in the state dir (one file gone or empty) gets a new pair, said in a notice: its fingerprint changed", async () => {
  const stateDir = await tempDir();
  const { tlsCert, tlsKey } = stateLayout(stateDir);
  const first = await loadTls(stateDir, {});
  assert.equal(first.notice, undefined, "a first start's pair is no news");
  for (const [what, gone] of [
    ["the certificate empty", tlsCert],
    ["the key empty", tlsKey],
  ] as const) {
    const before = await loadTls(stateDir, {});
    await writeFile(gone, "");
    const made = await loadTls(stateDir, {});
    assert.equal(made.source, "generated", what);
    assert.notEqual(made.fingerprint, before.fingerprint, what);
    assert.equal(
      made.notice,
      `the state dir's TLS pair was half there (${gone} was empty): made a new pair, whose fingerprint ${made.fingerprint} is not the one clients and plans may have pinned`,
      what,
    );
  }
  await rm(tlsCert);
  assert.match((await loadTls(stateDir, {})).notice ?? "", /\(.*tls\.crt was missing\): made a new pair/);
});

test("a start killed while it makes the pair leaves no file of it empty or half, only a temp file: the next start cleans it and makes a pair without a notice", async (t) => {
  const stateDir = await tempDir();
  const { tlsCert, tlsKey } = stateLayout(stateDir);
  // The key written, the certificate held: a kill -9 now.
  const stall = stallWrites((path) => basename(path).includes("tls.crt"));
  t.after(stall.release);
  const making = loadTls(stateDir, {});
  await stall.held;
  const killed = await tempDir();
  await cp(stateDir, killed, { recursive: true });
  stall.release();
  const made = await making;
  assert.deepEqual([await readFile(tlsCert, "utf8"), await readFile(tlsKey, "utf8")], [made.cert, made.key]);
  for (const path of [tlsCert, tlsKey]) assert.equal((await stat(path)).mode & 0o777, 0o600, path);
  assert.deepEqual((await readdir(stateDir)).sort(), ["tls.crt", "tls.key"], "no temp file left by writes that ended");

  assert.ok(!(await readdir(killed)).includes("tls.crt"), "no certificate where the start was killed");
  await openStore(killed, now);
  const next = await loadTls(killed, {});
  assert.equal(next.source, "generated");
  assert.equal(next.notice, undefined, "a pair nobody was ever shown is no news");
});

test("the pair made in the state dir names, as SPEC §3 says, the hostname, 127.0.0.1 and every address of the node (none link-local)", async () => {
  const made = await loadTls(await tempDir(), {});
  const names = new Set((new X509Certificate(made.cert).subjectAltName ?? "").split(", "));
  const addresses = Object.values(networkInterfaces()).flat().flatMap((info) => (info && !info.address.startsWith("fe80") ? [info.address] : []));
  // As X509Certificate writes an IPv6 address: eight groups, upper case, no leading zeros.
  const written = (a: string) => {
    if (!a.includes(":")) return a;
    const [head, tail = ""] = a.split("::");
    const left = head ? head.split(":") : [];
    const right = a.includes("::") && tail ? tail.split(":") : [];
    const groups = a.includes("::") ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right] : left;
    return groups.map((g) => parseInt(g, 16).toString(16).toUpperCase()).join(":");
  };
  for (const name of [`DNS:${hostname()}`, "IP Address:127.0.0.1", ...addresses.map((a) => `IP Address:${written(a)}`)]) {
    assert.ok(names.has(name), `${name} in ${[...names].join(", ")}`);
  }
});
