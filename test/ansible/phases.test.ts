import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { PHASES } from "../../core/common/model.ts";

const API_PY = new URL("../../ansible/collections/ansible_collections/stratum/installer/plugins/module_utils/api.py", import.meta.url);

test("the collection's phases (api.py's PHASES, Python's standard library only, no import of ours) are the installer's, so the modules refuse no phase an installer says", async () => {
  const source = await readFile(API_PY, "utf8");
  const listed = /^PHASES = \(([^)]*)\)$/m.exec(source)?.[1];
  assert.ok(listed !== undefined, "api.py has a PHASES tuple");
  assert.deepEqual([...listed.matchAll(/"([^"]*)"/g)].map((m) => m[1]), [...PHASES]);
});
