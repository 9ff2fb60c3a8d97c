/** cli/support-bundle.ts: what -o names, when it is written into as it is (a device, a pipe) rather than replaced whole. */
import assert from "node:assert/strict";
import * as fsp from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { targetOf } from "../../cli/support-bundle.ts";
import { tempDir } from "../helpers/installer.ts";

test("a name that was a device when looked at and is a regular file when opened (swapped in between, as a link in /tmp can be) is not written into in place: it takes the whole-file way", async () => {
  const folder = await tempDir("stratum-bundle-target-");
  const file = join(folder, "victim");
  await fsp.writeFile(file, "precious contents\n");
  // The look that saw a device, before the swap: the open then meets the regular file.
  let looks = 0;
  const sawDevice = async () => (looks++, { isFile: () => false, isDirectory: () => false });
  const target = await targetOf(file, sawDevice);
  if (typeof target === "object") await target.close();
  assert.equal(target, undefined, "written into as a device, its bytes would be overwritten in place, through any link");
  assert.equal(looks, 1);
  assert.equal(await fsp.readFile(file, "utf8"), "precious contents\n");
});
