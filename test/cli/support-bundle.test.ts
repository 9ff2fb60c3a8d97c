/** cli/support-bundle.ts: the bundle piped into stdout. */
import assert from "node:assert/strict";
import { createReadStream } from "node:fs";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { pipedInto } from "../../cli/support-bundle.ts";
import { tempDir } from "../helpers/installer.ts";

test("the bundle failing as it is piped into stdout (a file it reads failing: EIO) fails as itself, never handed to stdout, whose error handler said it as 'cannot write to stdout' and exited", async () => {
  const stdout = new PassThrough();
  const errors: Error[] = [];
  stdout.on("error", (err) => errors.push(err));
  // A real read error: a folder read as a file.
  const folder = await tempDir("stratum-sb-piped-");
  await assert.rejects(pipedInto(createReadStream(folder), stdout), { code: "EISDIR", syscall: "read" });
  assert.deepEqual(errors, []);
});
