/**
 * Payload verification: the installer's streamed sha256 of a generated payload (default 2 GiB)
 * against `sha256sum` of the same file in the same run; /status latency while it runs.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { percentile, startInstaller, stop } from "./lib.ts";

const agent = new Agent({ keepAlive: true, rejectUnauthorized: false });

function status(port: number, code: string): Promise<{ ms: number; blockers: { code: string }[] | undefined }> {
  const t0 = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/v1/installer/status", agent, headers: { authorization: `Bearer ${code}` } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, blockers: JSON.parse(text).blockers }));
    });
    req.on("error", reject);
    req.end();
  });
}

export async function benchPayload(node: string, bytes = 2 * 1024 ** 3) {
  const work = await mkdtemp(join(tmpdir(), "stratum-bench-payload-"));
  const folder = join(work, "payload");
  await mkdir(join(folder, "images"), { recursive: true });
  const image = join(folder, "images/big.tar");
  const block = randomBytes(4 * 1024 * 1024);
  const file = await open(image, "w");
  for (let written = 0; written < bytes; written += block.length) await file.write(block, 0, Math.min(block.length, bytes - written));
  await file.close();
  try {
    const t0 = process.hrtime.bigint();
    const { stdout } = await promisify(execFile)("sha256sum", [image]);
    const sha256sumMs = Number(process.hrtime.bigint() - t0) / 1e6;
    const sha256 = stdout.split(" ")[0]!;
    await writeFile(join(folder, "release.yaml"), `release: bench\nprofiles:\n  single-node: { enabled: true }\nimages:\n  - file: images/big.tar\n    size: ${bytes}\n    sha256: ${sha256}\n`);

    const { proc, port, code, log } = await startInstaller(["--state-dir", join(work, "state"), "--payload", folder], process.env, node);
    const latencies: number[] = [];
    let verifyingSeen = 0;
    for (;;) {
      const s = await status(port, code);
      if (!s.blockers) break;
      if (s.blockers.some((b) => b.code === "PAYLOAD_VERIFYING")) verifyingSeen++;
      latencies.push(s.ms);
    }
    await new Promise((r) => setTimeout(r, 100));
    const verified = /"message":"payload verified".*?"ms":(\d+)/.exec(log());
    await stop(proc);
    const installerMs = verified ? Number(verified[1]) : NaN;
    return {
      gib: bytes / 1024 ** 3,
      installerMBps: bytes / 1024 ** 2 / (installerMs / 1000),
      sha256sumMBps: bytes / 1024 ** 2 / (sha256sumMs / 1000),
      ratio: sha256sumMs / installerMs,
      statusDuringVerify: { requests: latencies.length, verifyingSeen, p50: percentile(latencies, 50), p99: percentile(latencies, 99) },
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
