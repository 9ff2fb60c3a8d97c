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

/** Whether this run is some of a file's tests only (a name pattern, --test-only): they reach only some screens. */
export const someTestsOnly = process.execArgv.some((arg) => /^--test-(name-pattern|skip-pattern|only)\b/.test(arg));

/**
 * One screen as a person sees it, at each width: a full-page screenshot `<name>-<width>.png`, nothing
 * sticks out sideways, no read-only field cuts its text off, the draft's problems are counted one way, and axe-core finds no critical or serious violation (each one listed). The viewport is restored after.
 */
export async function checkScreen(page: Page, name: string): Promise<void> {
  const size = page.viewportSize();
  const found: string[] = [];
  try {
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      if (overflow) found.push(`${viewport.width} px: the page sticks out ${overflow} px sideways`);
      for (const id of await page.evaluate(cutOff)) found.push(`${viewport.width} px: #${id} cuts its text off`);
      await page.screenshot({ path: join(ARTIFACTS, `${name}-${viewport.width}.png`), fullPage: true });
      for (const v of (await runAxe(page)).violations.filter((v) => FAILING.includes(v.impact ?? ""))) {
        found.push(`${viewport.width} px ${v.impact} ${v.id}: ${v.help}\n    ${v.nodes.map((n) => n.target.join(" ")).join("\n    ")}`);
      }
    }
  } finally {
    if (size) await page.setViewportSize(size);
  }
  const counts = await page.evaluate(problemCounts);
  if (counts.length > 1) found.push(`the page counts the draft's problems differently: ${counts.join(" / ")}`);
  checked.add(name);
  if (found.length) assert.fail(`${name}: sticks out sideways, cuts text off, contradicts itself or has critical or serious axe-core violations:\n  ${found.join("\n  ")}`);
}

/** The read-only fields (a fingerprint, a token once shown) whose text does not fit: a person compares or copies all of it. */
function cutOff(): string[] {
  return [...document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>("input[readonly]:not([type=password]), textarea[readonly]")]
    .filter((el) => el.offsetParent !== null && (el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight))
    .map((el) => el.id);
}

/** Every different "N problem(s)" the page says of the whole draft, a screen reader's words included (a step's own count in the stepper is a part, not the whole). */
function problemCounts(): string[] {
  const main = document.getElementById("main")!.cloneNode(true) as HTMLElement;
  main.querySelector("#stepper")?.remove();
  for (const hidden of main.querySelectorAll("[hidden]")) hidden.remove();
  return [...new Set([...main.textContent!.matchAll(/\b(\d+) problems?\b/g)].map((m) => m[1]!))];
}

/** axe's source injected into the page (a reload drops it); it reaches no network. */
async function runAxe(page: Page): Promise<AxeResults> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE);
  return page.evaluate((tags) => (window as unknown as { axe: typeof import("axe-core") }).axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] }), TAGS);
}
