import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { ROOT } from "../helpers/installer.ts";

/**
 * npm 11's `npm ci` runs no dependency's install script that package.json's `allowScripts` does not name, and ends a
 * newcomer's first command with a warning listing them and asking to review them (`npm install-scripts approve`). Each
 * one the lock holds is decided here, once: none is needed (esbuild finds its platform binary without its postinstall;
 * @scarf/scarf's only reports the install to its authors), so `npm ci` prints no question and older npms run them as before.
 */
test("every dependency with an install script is named in package.json's allowScripts, so npm ci asks nothing", async () => {
  const pkg = JSON.parse(await readFile(`${ROOT}/package.json`, "utf8")) as { allowScripts?: Record<string, boolean> };
  const lock = JSON.parse(await readFile(`${ROOT}/package-lock.json`, "utf8")) as { packages: Record<string, { hasInstallScript?: boolean }> };
  const withScripts = [...new Set(Object.entries(lock.packages).filter(([, p]) => p.hasInstallScript).map(([path]) => path.replace(/^.*node_modules\//, "")))].sort();
  assert.ok(withScripts.length > 0, "the lock marks its packages' install scripts (hasInstallScript)");
  const decided = Object.keys(pkg.allowScripts ?? {}).map((entry) => entry.replace(/(.)@.*$/, "$1"));
  assert.deepEqual(withScripts.filter((name) => !decided.includes(name)), [], "not in allowScripts");
});
