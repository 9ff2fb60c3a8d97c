import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { checked, checkScreen, someTestsOnly } from "../helpers/a11y.ts";
import { SKIP, intercept, launchBrowser } from "../helpers/browser.ts";
import { makePayload } from "../../demo/make-payload.ts";
import { startReadinessServer, type ReadinessServer } from "../../demo/readiness-server.ts";
import { VALID_DRAFT } from "../helpers/fixtures.ts";
import { harness, tempDir, untilNoBlockers, waitFor, writeFirstboot, type RunningInstaller } from "../helpers/installer.ts";

const lab = harness();
let browser: Browser;

/** A node of the cluster: an installer with a payload, its cloud the one demo cloud. */
async function node(cloud: ReadinessServer, folder?: string): Promise<RunningInstaller> {
  folder ??= await tempDir("stratum-console-cluster-");
  const payload = join(folder, "payload");
  await makePayload(payload);
  const installer = await lab.start({
    stateDir: join(folder, "state"),
    payload,
    args: ["--firstboot", await writeFirstboot(folder, "#!/bin/sh\necho founded\n"), "--node-yaml", join(folder, "etc/stratum/node.yaml"), "--readiness-url", cloud.url, "--readiness-timeout", "10", "--readiness-interval", "0.1"],
  });
  await untilNoBlockers(installer);
  return installer;
}

async function put(installer: RunningInstaller, draft: object): Promise<void> {
  const reply = await installer.request("/v1/installer/config", { method: "PUT", body: draft });
  assert.equal(reply.json.valid, true, reply.text);
}

/** A fresh browser context that may use the clipboard and fails the test on any uncaught page error; signed in. */
async function open(installer: RunningInstaller): Promise<{ page: Page; errors: Error[] }> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1024, height: 768 }, permissions: ["clipboard-read", "clipboard-write"] });
  lab.defer(() => context.close());
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors: Error[] = [];
  page.on("pageerror", (error) => errors.push(error));
  await page.goto(`https://127.0.0.1:${installer.port}/`);
  await page.getByLabel("Install code").fill(installer.code);
  await page.getByLabel("Install code").press("Enter");
  return { page, errors };
}

async function text(page: Page, selector: string): Promise<string> {
  return (await page.locator(selector).innerText()).trim();
}

/** What a screen reader needs here: every visible button and field has a name, every list of checks a heading. */
async function assertAccessible(page: Page): Promise<void> {
  const found = await page.evaluate(() => ({
    unnamedButtons: [...document.querySelectorAll<HTMLButtonElement>("button")].filter((b) => b.offsetParent !== null && !(b.textContent!.trim() || b.getAttribute("aria-label"))).map((b) => b.outerHTML),
    unlabelled: [...document.querySelectorAll<HTMLInputElement>("input, select, textarea")].filter((el) => el.offsetParent !== null && !el.labels?.length && !el.getAttribute("aria-label")).map((el) => el.id),
    listsWithoutHeading: [...document.querySelectorAll<HTMLElement>("ul.join-checks")].filter((ul) => ul.offsetParent !== null && !/^H[2-6]$/.test(document.getElementById(ul.getAttribute("aria-labelledby") ?? "")?.tagName ?? "")).length,
  }));
  assert.deepEqual(found, { unnamedButtons: [], unlabelled: [], listsWithoutHeading: 0 });
}

/** Each check of the list as "name (outcome) CODE". */
async function checks(page: Page, within: string): Promise<string[]> {
  return page.locator(`${within} ul.join-checks li`).evaluateAll((items) => items.map((li) => `${li.getAttribute("data-check")} ${li.querySelector(".outcome")!.textContent}${li.querySelector("code") ? " " + li.querySelector("code")!.textContent : ""}`));
}

/** The cluster's screens of the console, each checked at both widths. */
const SCREENS = ["join-token", "join-check-passed", "join-check-failed", "join-check-field-error", "join-preflight-failed"];

describe("web console: the cluster (SPEC §6)", { skip: SKIP }, () => {
  let cloud: ReadinessServer;
  let init: RunningInstaller;
  let token: string;

  before(async () => {
    if (SKIP) return;
    browser = await launchBrowser();
    const folder = await tempDir("stratum-console-init-");
    cloud = await startReadinessServer({ port: 0, scenario: "ready", foundedWith: join(folder, "etc/stratum/node.yaml") });
    init = await node(cloud, folder);
    await put(init, { ...VALID_DRAFT, mode: "hyperconverged-init", network: { ...VALID_DRAFT.network, vip: "10.20.0.10" }, storage: { osdDevices: ["/dev/sdb"] }, cluster: { name: "rack-a" } });
    assert.equal((await init.request("/v1/installer/install", { method: "POST" })).status, 202);
    await waitFor("the init node installed", async () => ((await init.request("/v1/installer/status")).json.phase === "done" ? true : undefined));
    token = (await init.request("/v1/installer/cluster/join-token")).json.token;
  });

  after(async () => {
    await browser?.close();
    await cloud?.close();
  });

  test("an installed init node shows its join token, masked, with Copy to the clipboard and, without the clipboard API, the token selected", async () => {
    const { page, errors } = await open(init);
    await page.getByRole("heading", { name: "Done: the node is installed" }).waitFor();
    const card = page.getByRole("region", { name: "Join nodes to this cluster" });
    await card.waitFor();
    assert.match(await text(page, "#h-join-token"), /^Put token and join address into each joining node's cluster fields \(or let fleet do it\)\.$/);
    const field = card.getByLabel("Join token");
    assert.equal(await field.inputValue(), token);
    assert.equal(await field.getAttribute("type"), "password", "masked until asked");
    assert.equal(await field.getAttribute("readonly"), "");
    assert.match(await text(page, "#join-token-facts"), /Join address\s+10\.20\.0\.10\s+Cluster\s+rack-a\s+Release\s+2026\.11\.0/);
    await card.getByRole("button", { name: "Show" }).click();
    assert.equal(await field.getAttribute("type"), "text");
    await card.getByRole("button", { name: "Hide" }).click();
    assert.equal(await field.getAttribute("type"), "password");
    await assertAccessible(page);

    await card.getByRole("button", { name: "Copy" }).click();
    await page.getByRole("status").filter({ hasText: "Copied" }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), token);
    await checkScreen(page, "join-token");

    // as on plain http: no clipboard API, so the token is shown and selected (and copied, where the browser still lets it)
    const said = await page.evaluate(async () => {
      const clipboard = navigator.clipboard;
      await clipboard.writeText("");
      Object.defineProperty(Navigator.prototype, "clipboard", { value: undefined, configurable: true });
      document.getElementById("join-token-copy")!.click();
      // The copy ends by saying what it did: wait for that, not for a guessed while.
      const copied = document.getElementById("join-token-copied")!;
      for (let looks = 0; !copied.textContent && looks < 1000; looks++) await new Promise((resolve) => setTimeout(resolve, 10));
      const input = document.getElementById("join-token-value") as HTMLInputElement;
      return { status: document.getElementById("join-token-copied")!.textContent, type: input.type, selected: input.value.slice(input.selectionStart!, input.selectionEnd!), focused: document.activeElement === input, clipboard: await clipboard.readText() };
    });
    assert.deepEqual({ ...said, clipboard: undefined, status: undefined }, { type: "text", selected: token, focused: true, clipboard: undefined, status: undefined });
    if (said.status === "Copied") assert.equal(said.clipboard, token);
    else assert.equal(said.status, "Selected: press Ctrl+C to copy");
    assert.deepEqual(errors, []);
  });

  test("a join draft: Check the cluster lists every check (passed, then a wrong fingerprint with its code and reason, a missing token as a field error), and a failed join preflight's verdict lists them the same way", async () => {
    const joiner = await node(cloud);
    const joinAddress = `127.0.0.1:${cloud.port}`;
    await put(joiner, { ...VALID_DRAFT, mode: "hyperconverged-join", hostname: "node-02", network: { ...VALID_DRAFT.network, address: "10.20.0.12/24" }, storage: { osdDevices: ["/dev/sdb"] }, cluster: { name: "rack-a", joinAddress, joinToken: token } });
    const { page, errors } = await open(joiner);
    await page.getByRole("heading", { name: "Mode", exact: true }).waitFor();
    await page.getByRole("navigation", { name: "Steps" }).getByRole("button", { name: "Cluster" }).click();
    const check = page.getByRole("button", { name: "Check the cluster" });
    await check.click();
    await page.getByRole("heading", { name: "Cluster check: every check passed" }).waitFor();
    assert.deepEqual(await checks(page, "#join-check-result"), ["reachable", "fingerprint", "join-info", "cluster", "release", "clock", "token"].map((name) => `${name} (passed)`));
    assert.match(await text(page, "#join-check-result"), /Checked at \d/);
    await checkScreen(page, "join-check-passed");

    const wrong = token.replace(/:[0-9a-f]{64}:/, `:${"ab".repeat(32)}:`);
    const tokenField = page.locator("#config-form").getByLabel("Join token");
    await tokenField.fill(wrong);
    const received = cloud.received().length;
    // The check's answer is held until the button has been seen disabled: a fast check would re-enable it first.
    let letGo = () => {};
    const held = new Promise<void>((resolve) => (letGo = resolve));
    const stopHolding = await intercept(page, "**/cluster/join-check", async (route) => {
      await held;
      await route.fallback();
    });
    const answered = page.waitForResponse((r) => r.url().endsWith("/cluster/join-check"));
    await check.click();
    assert.ok(await check.isDisabled(), "disabled while the check runs");
    letGo();
    await answered;
    await stopHolding();
    await page.getByRole("heading", { name: "Cluster check: 1 check failed" }).waitFor();
    assert.ok(await check.isEnabled());
    assert.equal(cloud.received().length, received, "the check sent nothing to a server the token does not pin");
    assert.deepEqual(await checks(page, "#join-check-result"), [
      "reachable (passed)", "fingerprint (failed) JOIN_FINGERPRINT_MISMATCH", "join-info (not checked)", "cluster (not checked)", "release (not checked)", "clock (not checked)", "token (not checked)",
    ]);
    assert.match(await text(page, "#join-check-result li[data-check=fingerprint]"), /the token pins abababababababab…: the join address is not the node the token came from/);
    assert.equal(await text(page, "#join-check-result li[data-check=join-info]"), "Join info answered (not checked)\nthe certificate is not the token's, so nothing was sent", "\"not checked\" said once");
    assert.equal((await joiner.request("/v1/installer/config")).json.config.cluster.joinToken, wrong, "the check saved the form first");
    await assertAccessible(page);
    await checkScreen(page, "join-check-failed");

    await tokenField.fill("");
    await check.click();
    await page.waitForFunction(() => document.activeElement?.id === "f-join-token");
    assert.equal(await tokenField.getAttribute("aria-invalid"), "true");
    assert.match(await text(page, `#${(await tokenField.getAttribute("aria-describedby"))!}`), /^Join token is required for mode hyperconverged-join: /, "the field's label, never its path");
    assert.match(await text(page, "#join-check-result"), /join address or join token is missing or malformed/);
    await checkScreen(page, "join-check-field-error");

    await tokenField.fill(wrong);
    await check.click();
    await page.getByRole("heading", { name: "Cluster check: 1 check failed" }).waitFor();
    await page.getByLabel("I understand these disks will be erased").check();
    await page.getByRole("button", { name: "Install", exact: true }).click();
    await page.getByRole("heading", { name: "Attempt 1 failed at preflight" }).waitFor();
    assert.match(await text(page, "#verdict"), /PREFLIGHT_FAILED/);
    await page.locator("#verdict").getByRole("heading", { name: "Join check: 1 check failed" }).waitFor();
    assert.deepEqual(await checks(page, "#verdict"), await checks(page, "#join-check-result"), "the verdict's checks, shown as the check on demand shows them");
    assert.ok(await page.getByRole("button", { name: "Fix the config" }).isVisible());
    await assertAccessible(page);
    await checkScreen(page, "join-preflight-failed");
    assert.deepEqual(errors, []);
  });

  test("every screen listed was reached and checked", { skip: someTestsOnly && "some tests only: they reach some screens only" }, () => {
    assert.deepEqual([...checked].sort(), [...SCREENS].sort(), "each screen in SCREENS is reached and checked, and each checked screen is listed there");
  });
});
