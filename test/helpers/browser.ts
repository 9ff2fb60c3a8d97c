import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { chromium, type Browser, type Page, type Route } from "playwright-core";
import { ROOT } from "./paths.ts";

const CHROMIUM = "/usr/bin/chromium";
/** Where the browser tests leave their screenshots. */
export const ARTIFACTS = join(ROOT, "test-artifacts/console");
/**
 * A reason to skip the browser tests, or false when Chromium is there. CI (.ci/run installs Chromium first) never
 * skips them: there a missing browser fails the tests instead of hiding them.
 */
export const SKIP = existsSync(CHROMIUM) || process.env.CI ? false : `no Chromium at ${CHROMIUM}; as root, test/setup/ensure-chromium.sh installs Debian's chromium`;

/** Debian's Chromium, headless, quiet on the network; the artifacts folder made. */
export async function launchBrowser(): Promise<Browser> {
  await mkdir(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

/**
 * Routes the page's requests for `url` through `handle` until the returned `stop()`, which resolves once every
 * request handled so far is answered; from then on they pass untouched (`route.fallback()`: Playwright sends them
 * on itself). Never unrouted while the page lives: unrouting makes Playwright continue by itself the requests a
 * handler still holds, and the handler's own answer to one of them is then "Route is already handled!".
 */
export async function intercept(page: Page, url: string, handle: (route: Route) => Promise<void>): Promise<() => Promise<void>> {
  let active = true;
  const inFlight = new Set<Promise<void>>();
  await page.route(url, (route) => {
    if (!active) return route.fallback();
    const handled = handle(route).finally(() => inFlight.delete(handled));
    inFlight.add(handled);
    return handled;
  });
  return async () => {
    active = false;
    await Promise.all(inFlight);
  };
}

/** Holds the page's requests for `url` until `release()`, then passes them and later ones on; `stop()` as intercept's. */
export async function hold(page: Page, url: string): Promise<{ release: () => void; stop: () => Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const stop = await intercept(page, url, async (route) => {
    await released;
    await route.fallback();
  });
  return { release, stop };
}
