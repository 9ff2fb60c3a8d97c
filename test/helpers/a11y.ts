import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Page } from "playwright-core";
import type { AxeResults } from "axe-core";
import { ARTIFACTS } from "./browser.ts";

/** The widths every screen is checked at: a laptop and a phone. */
const VIEWPORTS = [{ width: 1280, height: 800 }, { width: 390, height: 844 }] as const;
const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"];
const FAILING = ["critical", "serious"];

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** The screens checked so far in this test process, so a test can list the screens it must reach. */
export const checked = new Set<string>();

/**
 * One screen as a person sees it, at each width: a full-page screenshot `<name>-<width>.png`, nothing
 * sticks out sideways, and axe-core finds no critical or serious violation (each one listed). The viewport is restored after.
 */
export async function checkScreen(page: Page, name: string): Promise<void> {
  const size = page.viewportSize();
  const found: string[] = [];
  try {
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      if (overflow) found.push(`${viewport.width} px: the page sticks out ${overflow} px sideways`);
      await page.screenshot({ path: join(ARTIFACTS, `${name}-${viewport.width}.png`), fullPage: true });
      for (const v of (await runAxe(page)).violations.filter((v) => FAILING.includes(v.impact ?? ""))) {
        found.push(`${viewport.width} px ${v.impact} ${v.id}: ${v.help}\n    ${v.nodes.map((n) => n.target.join(" ")).join("\n    ")}`);
      }
    }
  } finally {
    if (size) await page.setViewportSize(size);
  }
  checked.add(name);
  if (found.length) assert.fail(`${name}: sticks out sideways or has critical or serious axe-core violations:\n  ${found.join("\n  ")}`);
}

/** axe's source injected into the page (a reload drops it); it reaches no network. */
async function runAxe(page: Page): Promise<AxeResults> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE);
  return page.evaluate((tags) => (window as unknown as { axe: typeof import("axe-core") }).axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] }), TAGS);
}
