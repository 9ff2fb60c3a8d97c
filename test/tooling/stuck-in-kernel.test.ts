/** test/helpers/stuck-in-kernel.ts: its FUSE mount must not outlive a test file that dies without releasing it. */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFile, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { waitFor } from "../helpers/installer.ts";
import { ROOT } from "../helpers/paths.ts";
import { alive } from "../helpers/processes.ts";

const mounted = async (mountPoint: string) => (await readFile("/proc/self/mounts", "utf8")).split("\n").some((line) => line.split(" ")[1] === mountPoint);

test("a test file killed while its stuck mount is up (a crash, a runner's kill) leaves no mount behind, and what waited on it ends", async (t) => {
  // The helper is used as a test file uses it, then the file dies with no finally run.
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      `import { spawn } from "node:child_process";
       import { stuckMount } from ${JSON.stringify(join(ROOT, "test/helpers/stuck-in-kernel.ts"))};
       const mount = await stuckMount();
       if (!mount) { console.log("none"); process.exit(0); }
       const victim = spawn("stat", [mount.file], { stdio: "ignore", detached: true });
       await mount.lookedUp();
       console.log(JSON.stringify({ file: mount.file, pid: victim.pid }));
       process.kill(process.pid, "SIGKILL");`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk));
  await once(child, "exit");
  if (out.trim() === "none") return t.skip("needs root and a FUSE mount");
  const { file, pid } = JSON.parse(out) as { file: string; pid: number };
  const mountPoint = dirname(file);
  try {
    await waitFor("the process that waited on the mount to end", async () => !(await alive(pid)) || undefined);
    await waitFor("the mount to be gone", async () => !(await mounted(mountPoint)) || undefined);
  } finally {
    await rm(dirname(mountPoint), { recursive: true, force: true }).catch(() => undefined);
  }
});
