import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { connect, createServer, type Socket } from "node:net";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import type { Browser, Download, Page } from "playwright-core";
import { checked, checkScreen, someTestsOnly } from "../helpers/a11y.ts";
import { SKIP, hold, intercept, launchBrowser } from "../helpers/browser.ts";
import { makePayload } from "../../demo/make-payload.ts";
import { startReadinessServer, type ReadinessServer, type Scenario } from "../../demo/readiness-server.ts";
import { VALID_DRAFT, VALID_NODE_YAML } from "../helpers/fixtures.ts";
import { LOCKOUT_POLICY } from "../../core/access/lockout.ts";
import { shownField } from "../../core/config/messages.ts";
import { DEMO_HOST_FACTS, harness, tempDir, untilNoBlockers, waitFor, writeFirstboot, writeSharedSerialHostFacts, type RunningInstaller } from "../helpers/installer.ts";

const SSH_KEY = VALID_DRAFT.admin.sshAuthorizedKeys[0]!;

/**
 * Prints a few lines, a second apart in all, so the console shows firstboot running and its log arriving live. A
 * gated rig holds it after its first "setting up" line until the test lets it go (./go beside it): what a test checks
 * while firstboot runs is there however slow the machine.
 */
const FIRSTBOOT = `#!/bin/sh
echo "firstboot: configuring from $1"
for part in network storage services; do
  echo "firstboot: setting up $part"
  while [ ! -e "$(dirname "$0")/go" ]; do sleep 0.05; done
  sleep 0.3
done
echo "warning: clock not synced yet" >&2
echo "firstboot: done"
`;

const lab = harness();
let browser: Browser;

before(async () => {
  if (SKIP) return;
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
});

interface Rig {
  installer: RunningInstaller;
  readiness: ReadinessServer;
  /** Lets a gated rig's firstboot go on past its first "setting up" line. */
  letFirstbootGo(): Promise<void>;
  /** The installer started again on its state dir, as systemd does after it stopped: it listens on another port. */
  startAgain(): Promise<RunningInstaller>;
}

async function rig(options: { scenario?: Scenario; timeout?: number; handoff?: string; payload?: string; gated?: boolean; firstboot?: string } = {}): Promise<Rig> {
  const folder = await tempDir("stratum-console-");
  const readiness = await startReadinessServer({ port: 0, scenario: options.scenario ?? "progress", stageMs: 400 });
  lab.defer(() => readiness.close());
  const firstboot = await writeFirstboot(folder, options.firstboot ?? FIRSTBOOT);
  const letFirstbootGo = () => writeFile(join(folder, "go"), "");
  if (!options.gated) await letFirstbootGo();
  const handoff = join(folder, "handoff/node.yaml");
  if (options.handoff) {
    await mkdir(join(folder, "handoff"));
    await writeFile(handoff, options.handoff);
    await writeFile(join(folder, "install-record.json"), JSON.stringify({ origin: "node.yaml on the partition labeled STRATUM" }));
  }
  const start = () => lab.start({
    stateDir: join(folder, "state"),
    ...(options.payload ? { payload: options.payload } : {}),
    args: [
      "--firstboot", firstboot,
      "--node-yaml", join(folder, "etc/stratum/node.yaml"),
      "--handoff", handoff,
      "--install-record", join(folder, "install-record.json"),
      "--readiness-url", readiness.url,
      "--readiness-timeout", String(options.timeout ?? 20),
      "--readiness-interval", "0.1",
    ],
  });
  return { installer: await start(), readiness, letFirstbootGo, startAgain: start };
}

/** A fresh browser context at 1024×768 that fails the test on any uncaught page error. */
async function open(installer: RunningInstaller, port = installer.port): Promise<{ page: Page; errors: Error[] }> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1024, height: 768 } });
  lab.defer(() => context.close());
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors: Error[] = [];
  page.on("pageerror", (error) => errors.push(error));
  await page.goto(`https://127.0.0.1:${port}/`);
  return { page, errors };
}

/**
 * A TCP relay to the installer (TLS passes through untouched) whose every connection can be cut at once: a network
 * blip. `to` sends the connections made from then on to another port: the installer started again.
 */
async function relay(port: number): Promise<{ port: number; cut: () => number; to: (port: number) => void; close: () => Promise<void> }> {
  const open = new Set<Socket>();
  let target = port;
  const server = createServer((client) => {
    const upstream = connect(target, "127.0.0.1");
    for (const [a, b] of [[client, upstream], [upstream, client]] as const) {
      open.add(a);
      a.on("error", () => b.destroy());
      a.on("close", () => (open.delete(a), b.destroy()));
      a.pipe(b);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as import("node:net").AddressInfo).port,
    cut: () => {
      const n = open.size;
      for (const socket of open) socket.destroy();
      return n;
    },
    to: (next) => void (target = next),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function signIn(page: Page, code: string): Promise<void> {
  await page.getByLabel("Install code").fill(code);
  await page.getByLabel("Install code").press("Enter");
}

async function text(page: Page, selector: string): Promise<string> {
  return (await page.locator(selector).innerText()).trim();
}

/** A support bundle the page downloaded: its file name and its manifest, the bundle unpacked with tar. */
async function unpackBundle(download: Download): Promise<{ name: string; manifest: { hostname: string; files: { path: string }[] } }> {
  const name = download.suggestedFilename();
  const folder = await tempDir("stratum-console-bundle-");
  await promisify(execFile)("tar", ["xzf", (await download.path())!, "-C", folder]);
  return { name, manifest: JSON.parse(await readFile(join(folder, name.replace(/\.tar\.gz$/, ""), "manifest.json"), "utf8")) };
}

/** A bundle's name: the installer's host name and the UTC time it was made. */
async function bundleName(installer: RunningInstaller): Promise<RegExp> {
  const hostname = (await installer.request("/v1/installer/status")).json.hostname as string;
  return new RegExp(`^stratum-support-${hostname.replace(/[^A-Za-z0-9.-]/g, "_").replace(/\./g, "\\.")}-\\d{8}T\\d{6}Z\\.tar\\.gz$`);
}

/** Every visible form control has a label a screen reader announces. */
async function assertLabelled(page: Page): Promise<void> {
  const unlabelled = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLInputElement>("input, select, textarea")]
      .filter((el) => el.offsetParent !== null && (el.labels?.length ?? 0) === 0 && !el.getAttribute("aria-label"))
      .map((el) => el.id || el.name),
  );
  assert.deepEqual(unlabelled, []);
}

async function saveStep(page: Page, next: string): Promise<void> {
  await page.getByRole("button", { name: /^Save( and continue)?$/ }).click();
  await page.getByRole("heading", { name: next, exact: true }).waitFor();
}

/** Field `label` marked invalid, its message beside it. */
async function invalid(page: Page, label: string): Promise<void> {
  await page.waitForFunction((name) => {
    const el = [...document.querySelectorAll("label")].find((l) => l.textContent === name)?.control;
    return el?.getAttribute("aria-invalid") === "true";
  }, label);
}

/** Every screen of the console these tests reach (the cluster's are in console-cluster.test.ts), each checked at both widths. */
const SCREENS = [
  "sign-in", "sign-in-wrong-code", "sign-in-locked-out",
  "mode", "mode-field-errors", "network", "network-field-errors", "storage", "storage-field-errors",
  "cluster-single-node", "cluster-init", "cluster-field-errors", "admin", "admin-field-errors",
  "node-yaml", "node-yaml-errors", "install-card-ready", "review", "payload-verifying",
  "installing", "readiness-wait", "readiness-countdown", "readiness-timeout", "attempt-history", "yaml-lines", "recheck-done", "done", "installer-unreachable",
  "unattended-blocked", "unattended-started", "unattended-invalid",
  "readiness-timeout-bundle", "support-bundle-downloading", "support-bundle-failed", "draft-changed-elsewhere",
];

/** Like open(), in a browser whose clock reads another zone in 12-hour time, and an hour fast: a time shown in local time, or measured by the browser's clock, would not match. */
async function openElsewhere(installer: RunningInstaller): Promise<{ page: Page; errors: Error[] }> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1024, height: 768 }, timezoneId: "America/Los_Angeles", locale: "en-US" });
  lab.defer(() => context.close());
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors: Error[] = [];
  page.on("pageerror", (error) => errors.push(error));
  await page.clock.install({ time: Date.now() + 3_600_000 });
  await page.goto(`https://127.0.0.1:${installer.port}/`);
  return { page, errors };
}

const utc = (iso: string) => iso.slice(11, 19);

/** A ready installer whose draft is `draft` (valid), and its console signed in, on the review. */
async function signedInOnReview(draft: object): Promise<{ installer: RunningInstaller; page: Page; errors: Error[] }> {
  const { installer } = await rig({ scenario: "ready" });
  await untilNoBlockers(installer);
  assert.equal((await installer.request("/v1/installer/config", { method: "PUT", body: draft })).json.valid, true);
  const { page, errors } = await open(installer);
  await signIn(page, installer.code);
  await page.getByRole("region", { name: "Review before you install" }).waitFor();
  return { installer, page, errors };
}

/** An installer (of `options`) whose attempt 1 failed at `step`, and its console signed in on that verdict. */
async function signedInOnFailure(options: Parameters<typeof rig>[0], step: "firstboot" | "readiness"): Promise<{ installer: RunningInstaller; page: Page; errors: Error[] }> {
  const { installer } = await rig(options);
  await untilNoBlockers(installer);
  assert.equal((await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT })).json.valid, true);
  assert.equal((await installer.request("/v1/installer/install", { method: "POST" })).status, 202);
  const { page, errors } = await open(installer);
  await signIn(page, installer.code);
  await page.getByRole("heading", { name: `Attempt 1 failed at ${step}` }).waitFor();
  return { installer, page, errors };
}

describe("web console", { skip: SKIP }, () => {
  test("a person's whole path: wrong code, sign in, the guided form with a field error fixed, install live (and after a reload), done, report", async () => {
    const { installer, letFirstbootGo } = await rig({ gated: true });
    await untilNoBlockers(installer);
    const { page, errors } = await open(installer);
    await checkScreen(page, "sign-in");

    await signIn(page, "AAAA-BBBB-CCCC");
    await page.getByText("That install code is wrong").waitFor();
    assert.equal(await page.getByLabel("Install code").getAttribute("aria-invalid"), "true");
    await checkScreen(page, "sign-in-wrong-code");
    await signIn(page, installer.code);
    await page.getByRole("heading", { name: "Mode", exact: true }).waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.getItem("stratum.installCode")), installer.code);
    assert.equal(await page.evaluate(() => localStorage.length), 0, "the code is kept in sessionStorage only");

    assert.ok(await page.getByLabel("Single node").isChecked());
    assert.ok(await page.getByLabel("Disaggregated control plane (preview)").isDisabled());
    assert.match(await text(page, "#mode-disaggregated-control-plane-help"), /^Not available: the disaggregated profile is a preview/);
    await checkScreen(page, "mode");
    await page.getByLabel("Time zone").fill("Europe/Berlin");
    await assertLabelled(page);
    await saveStep(page, "Network");
    await checkScreen(page, "network");

    await page.getByLabel("Management interface").selectOption("eno1");
    assert.equal(await page.getByLabel("Address with prefix").inputValue(), "10.20.0.11/24", "pre-filled from eno1");
    await page.getByLabel("Gateway").fill("10.20.0.1");
    await page.getByLabel("DNS server 1").fill("10.20.0.2");
    await page.getByLabel("floating IP range 1").fill("203.0.113.0/24");
    await page.getByRole("button", { name: "Add floating IP range" }).click();
    await page.getByLabel("floating IP range 2").fill("203.0.113.128/25");
    await page.getByRole("button", { name: "Save and continue" }).click();

    const second = page.getByLabel("floating IP range 2");
    await page.waitForFunction(() => document.activeElement?.id === "f-network.floatingIpCidrs-1");
    assert.equal(await second.getAttribute("aria-invalid"), "true");
    const describedBy = (await second.getAttribute("aria-describedby"))!;
    const overlap = "Floating IP range 2 (203.0.113.128/25) overlaps floating IP range 1 (203.0.113.0/24)";
    assert.equal(await text(page, `#${describedBy}`), overlap, "the form's words, not the validator's paths");
    const first = page.getByLabel("floating IP range 1");
    assert.equal(await first.getAttribute("aria-invalid"), "true", "the range it overlaps is marked too");
    assert.equal(await text(page, `#${(await first.getAttribute("aria-describedby"))!.split(" ").pop()}`), overlap);
    assert.match(await text(page, "#summary"), new RegExp(`^1 problem to fix\\s+Network › floating IP range 2: ${overlap.replace(/[().]/g, "\\$&")}$`));
    assert.match(await text(page, "#readiness-of-draft"), /^The draft does not validate yet \(1 problem listed above\): fill and save the remaining steps \(Storage, Cluster, Admin\), and fix what is listed\./);
    assert.equal(await page.locator("#announce").textContent(), `Saved. ${await text(page, "#readiness-of-draft")}`, "a screen reader hears the count the screen shows, not the admin step's problem not listed yet");
    await checkScreen(page, "network-field-errors");

    await second.fill("198.51.100.0/24");
    await saveStep(page, "Storage");
    await checkScreen(page, "storage");
    assert.ok(await page.getByLabel("/dev/sda").isDisabled());
    assert.match(await text(page, "#disk-sda-help"), /In use: has partitions sda1, sda2/);
    await page.getByLabel("/dev/sdb").check();
    await saveStep(page, "Cluster");
    await page.getByText("A single node founds and joins no cluster").waitFor();
    await checkScreen(page, "cluster-single-node");
    await saveStep(page, "Admin");
    await checkScreen(page, "admin");
    await page.getByLabel("SSH key 1").fill(SSH_KEY);
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.waitForFunction(() => document.activeElement?.id === "review");
    assert.match(await text(page, "#readiness-of-draft"), /^The draft is valid and nothing blocks the install/);
    assert.equal(await page.locator("#summary").isVisible(), false);
    await checkScreen(page, "install-card-ready");

    const draft = (await installer.request("/v1/installer/config")).json;
    assert.deepEqual(draft.config, {
      mode: "single-node",
      hostname: "node-01",
      timezone: "Europe/Berlin",
      network: { interface: "eno1", address: "10.20.0.11/24", gateway: "10.20.0.1", dns: ["10.20.0.2"], floatingIpCidrs: ["203.0.113.0/24", "198.51.100.0/24"] },
      storage: { osdDevices: ["/dev/sdb"] },
      admin: { sshAuthorizedKeys: [SSH_KEY] },
    });

    await page.getByLabel("I understand these disks will be erased").check();
    await page.getByRole("button", { name: "Install", exact: true }).click();
    await page.locator("#steps li[data-step=firstboot].running").waitFor();
    assert.ok(await page.locator("#steps li[data-step=preflight].succeeded").isVisible());
    await page.locator("#log").getByText("firstboot: setting up").first().waitFor();
    assert.equal(await page.locator("#verdict").isVisible(), false, "the log arrives while the install runs");
    await checkScreen(page, "installing");
    await page.reload();
    await page.getByRole("heading", { name: "Install, attempt 1" }).waitFor();
    await page.locator("#steps li[data-step=firstboot].running").waitFor();
    await letFirstbootGo();

    await page.getByRole("heading", { name: "Done: the node is installed" }).waitFor();
    assert.deepEqual(await page.locator("#steps li").evaluateAll((items) => items.map((li) => li.className)), ["succeeded", "succeeded", "succeeded", "succeeded"]);
    assert.match(await text(page, "#log"), /\[firstboot\] warning: clock not synced yet/);
    assert.match(await text(page, "#cloud-state"), /^State: READY/);
    assert.equal(await page.locator("#checks tbody tr").count(), 3);
    assert.match(await text(page, "#install-view-title"), /^Install, attempt 1$/);
    await page.locator("#next").getByRole("heading", { name: "What comes next" }).waitFor();
    assert.match(await text(page, "#next"), /Reach the node over SSH at 10\.20\.0\.11 with the private key of one of the admin keys/);
    assert.equal(await page.getByLabel("TLS SHA-256 fingerprint").inputValue(), installer.fingerprint);
    await page.setViewportSize({ width: 1280, height: 800 });
    const fingerprint = await page.getByLabel("TLS SHA-256 fingerprint").evaluate((el) => {
      const style = getComputedStyle(el);
      return { whole: el.scrollWidth <= el.clientWidth && el.scrollHeight <= el.clientHeight, lines: Math.round((el.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom)) / parseFloat(style.lineHeight)) };
    });
    assert.deepEqual(fingerprint, { whole: true, lines: 1 }, "the whole fingerprint is in view at 1280 px, on one line");
    await page.setViewportSize({ width: 1024, height: 768 });
    await page.locator("#tls").getByRole("button", { name: "Copy" }).click();
    await page.locator("#tls-copied").getByText(/^(Copied|Selected: press Ctrl\+C to copy)$/).waitFor();
    await checkScreen(page, "done");
    assert.equal(await page.locator("#verdict").getByRole("button", { name: "Download support bundle" }).count(), 0, "a succeeded verdict offers no support bundle");

    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download report" }).click()]);
    assert.equal(download.suggestedFilename(), "stratum-install-report-attempt-1.json");
    const report = JSON.parse(await readFile((await download.path())!, "utf8"));
    assert.equal(report.attempt, 1);
    assert.equal(report.verdict.outcome, "succeeded");
    assert.deepEqual(errors, []);
  });

  test("failure and recovery: node.yaml with a line:column error, READINESS_TIMEOUT, Recheck readiness once the cloud is READY", async () => {
    const { installer, readiness } = await rig({ scenario: "never", timeout: 2 });
    await untilNoBlockers(installer);
    const { page, errors } = await open(installer);
    await signIn(page, installer.code);
    await page.getByRole("tab", { name: "Guided form" }).focus();
    await page.keyboard.press("ArrowRight");
    assert.equal(await page.getByRole("tab", { name: "node.yaml" }).getAttribute("aria-selected"), "true");
    assert.equal(await page.evaluate(() => [document.activeElement!.id, getComputedStyle(document.activeElement!).outlineStyle].join(" ")), "tab-yaml solid", "keyboard focus is visible");
    await checkScreen(page, "node-yaml");
    const yaml = page.getByRole("textbox", { name: "node.yaml" });
    const nodeYaml = VALID_NODE_YAML.replace("hostname:", "hostnme:");
    await yaml.fill(nodeYaml.replace("  gateway: 10.20.0.1", '   gateway: "10.20.0.1'));
    await page.getByRole("button", { name: "Save node.yaml" }).click();
    await page.getByRole("button", { name: "Line 5, column 12" }).waitFor();
    assert.match(await text(page, "#yaml-errors"), /^1 problem in node\.yaml\s*5:12 node\.yaml: YAML syntax error: /, "a half-edited node.yaml is saved, its parse error shown like any other");
    assert.equal((await installer.request("/v1/installer/config")).json.valid, false);

    await yaml.fill(nodeYaml);
    await page.getByRole("button", { name: "Save node.yaml" }).click();
    await page.getByRole("button", { name: "Line 2, column 1" }).waitFor();
    assert.match(await text(page, "#yaml-errors"), /2:1 hostnme: hostnme is not a known key \(did you mean hostname\?\)/);
    assert.equal(await yaml.getAttribute("aria-invalid"), "true");
    await page.getByRole("button", { name: "Line 2, column 1" }).click();
    const caret = await yaml.evaluate((el: HTMLTextAreaElement) => [document.activeElement === el, el.selectionStart]);
    assert.deepEqual(caret, [true, "mode: single-node\n".length], "the caret is at line 2, column 1");
    await checkScreen(page, "node-yaml-errors");

    await yaml.fill(nodeYaml.replace("hostnme", "hostname"));
    await page.getByRole("button", { name: "Save node.yaml" }).click();
    await page.waitForFunction(() => !(document.getElementById("install-button") as HTMLButtonElement).disabled);
    assert.equal((await installer.request("/v1/installer/config")).json.source, "yaml");
    await page.getByRole("button", { name: "Install", exact: true }).click();

    await page.getByRole("button", { name: "Recheck readiness" }).waitFor();
    assert.match(await text(page, "#verdict"), /Attempt 1 failed at readiness\s+READINESS_TIMEOUT\s+The cloud was not READY within 2 s; .*not ready: ceph/);
    assert.match(await text(page, "#log"), /taking longer than expected/);
    await checkScreen(page, "readiness-timeout");
    const [download] = await Promise.all([page.waitForEvent("download"), page.locator("#verdict").getByRole("button", { name: "Download support bundle" }).click()]);
    const bundle = await unpackBundle(download);
    assert.match(bundle.name, await bundleName(installer));
    assert.equal(bundle.manifest.hostname, (await installer.request("/v1/installer/status")).json.hostname);
    assert.ok(bundle.manifest.files.some((f) => f.path === "attempts/1/verdict.json"), "the failed attempt's verdict is in it");
    await page.locator("#verdict").getByRole("status").getByText("Support bundle downloaded.").waitFor();
    await checkScreen(page, "readiness-timeout-bundle");

    readiness.setScenario("ready");
    await page.getByRole("button", { name: "Recheck readiness" }).click();
    await page.getByRole("heading", { name: "Readiness recheck, attempt 2" }).waitFor();
    await page.getByRole("heading", { name: "Done: the cloud is READY" }).waitFor();
    assert.deepEqual(await page.locator("#steps li").evaluateAll((items) => items.map((li) => `${li.dataset.step}:${li.className}`)), ["readiness:succeeded"]);
    assert.equal((await installer.request("/v1/installer/status")).json.phase, "done");
    await checkScreen(page, "recheck-done");
    assert.deepEqual(errors, []);
  });

  test("the connection breaks off mid-install: the console reconnects, resumes the event stream where it stopped (Last-Event-ID), every log line shown once; an installer gone is told in the notice", async () => {
    const { installer, letFirstbootGo } = await rig({ scenario: "ready", gated: true });
    await untilNoBlockers(installer);
    const put = await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT });
    assert.equal(put.json.valid, true, put.text);
    const blip = await relay(installer.port);
    lab.defer(() => blip.close());
    const { page, errors } = await open(installer, blip.port);
    await signIn(page, installer.code);
    const announced: string[] = [];
    await page.exposeFunction("recordAnnouncement", (text: string) => announced.push(text));
    await page.evaluate(() => {
      const live = document.getElementById("announce")!;
      new MutationObserver(() => (window as unknown as { recordAnnouncement: (t: string) => void }).recordAnnouncement(live.textContent ?? "")).observe(live, { childList: true, characterData: true, subtree: true });
    });

    await page.getByRole("button", { name: "Install", exact: true }).click();
    await page.locator("#log").getByText("firstboot: setting up network").waitFor();
    assert.ok(blip.cut() > 0, "connections were open to cut");
    // firstboot is held until the page has said so: the cut falls while the event stream is open, not after its end.
    await waitFor("the page to say the stream broke off", async () => (announced.includes("The event stream broke off; reconnecting.") ? true : undefined));
    await letFirstbootGo();
    await page.getByRole("heading", { name: "Done: the node is installed" }).waitFor();

    const log = await text(page, "#log");
    for (const line of ["firstboot: setting up network", "firstboot: setting up storage", "firstboot: setting up services", "firstboot: done"]) {
      assert.equal(log.split(line).length - 1, 1, `"${line}" shown once in:\n${log}`);
    }
    assert.ok(log.indexOf("setting up network") < log.indexOf("setting up storage") && log.indexOf("setting up storage") < log.indexOf("firstboot: done"), log);
    assert.deepEqual(await page.locator("#steps li").evaluateAll((items) => items.map((li) => li.className)), ["succeeded", "succeeded", "succeeded", "succeeded"]);

    const stopCutting = await intercept(page, "**/v1/installer/status", (route) => route.abort());
    await page.locator("#notice").getByText(/^The installer did not answer \(.+\)\. Check that it still runs, then try again\.$/).waitFor();
    await checkScreen(page, "installer-unreachable");
    await stopCutting();
    assert.deepEqual(errors, []);
  });

  test("an installer that stops answering mid-install: the step's and the attempt's times stop where it was last heard of, and say so", async () => {
    const { installer, letFirstbootGo } = await rig({ scenario: "ready", gated: true });
    await untilNoBlockers(installer);
    assert.equal((await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT })).json.valid, true);
    assert.equal((await installer.request("/v1/installer/install", { method: "POST" })).status, 202);
    const { page, errors } = await open(installer);
    await signIn(page, installer.code);
    await page.locator("#log").getByText("firstboot: setting up network").waitFor();
    await page.clock.install();
    await page.reload();
    const firstboot = page.locator('#steps li[data-step="firstboot"]');
    await firstboot.getByText(/^Run firstboot \(running, \d+ s\)$/).waitFor();

    const stopAnswering = await intercept(page, "**/v1/installer/**", (route) => route.abort());
    await page.clock.fastForward(3_000);
    await page.locator("#notice").getByText(/^The installer did not answer/).waitFor();
    const frozen = /^Run firstboot \(running, (\d+) s when last heard\)$/;
    await firstboot.getByText(frozen).waitFor();
    const shown = await firstboot.innerText();
    assert.match(await text(page, "#attempt-times"), /running for \d+ s when last heard: the installer is not answering$/);
    await page.clock.fastForward(60_000);
    await page.locator("#notice").getByText(/^The installer did not answer/).waitFor();
    assert.equal(await firstboot.innerText(), shown, "a minute later, the time has not moved");

    await stopAnswering();
    await letFirstbootGo();
    await page.clock.fastForward(3_000);
    await page.getByRole("heading", { name: "Done: the node is installed" }).waitFor();
    assert.deepEqual(errors, []);
  });

  test("an installer stopped mid-attempt (SIGTERM): the page says the installer is stopping (a restart, or a stop), not that the stream broke off, on each try to reconnect until it answers again", async () => {
    const { installer } = await rig({ scenario: "never", timeout: 600 });
    await untilNoBlockers(installer);
    assert.equal((await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT })).json.valid, true);
    assert.equal((await installer.request("/v1/installer/install", { method: "POST" })).status, 202);
    const { page, errors } = await open(installer);
    await signIn(page, installer.code);
    await page.locator('#steps li[data-step="readiness"]').getByText(/^Wait until the cloud is READY \(running, \d+ s\)$/).waitFor();
    const announced: string[] = [];
    await page.exposeFunction("recordAnnouncement", (text: string) => announced.push(text));
    await page.evaluate(() => {
      const live = document.getElementById("announce")!;
      new MutationObserver(() => (window as unknown as { recordAnnouncement: (t: string) => void }).recordAnnouncement(live.textContent ?? "")).observe(live, { childList: true, characterData: true, subtree: true });
    });

    assert.equal(await installer.stop(), 0);
    const stopping = "The installer is stopping (a restart, or a stop); reconnecting when it answers again.";
    await page.waitForFunction((said) => document.getElementById("announce")!.textContent === said, stopping);
    // The tries after it find no installer (it stopped): until one answers, the stop is what the page last heard.
    await waitFor("a try after the stop to fail", async () => (announced.filter((text) => text === stopping).length >= 2 ? true : undefined));
    assert.deepEqual([...new Set(announced)], [stopping]);
    assert.deepEqual(errors, []);
  });

  test("an installer killed mid-attempt and started again: its clocks stay where it was last heard of until its events come again, and the step it interrupted ends at its last event, not when the verdict was written after the downtime", async () => {
    const { installer, startAgain } = await rig({ scenario: "never", timeout: 600 });
    await untilNoBlockers(installer);
    assert.equal((await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT })).json.valid, true);
    assert.equal((await installer.request("/v1/installer/install", { method: "POST" })).status, 202);
    const link = await relay(installer.port);
    lab.defer(() => link.close());
    const { page, errors } = await open(installer, link.port);
    await signIn(page, installer.code);
    const readiness = page.locator('#steps li[data-step="readiness"]');
    await readiness.getByText(/^Wait until the cloud is READY \(running, \d+ s\)$/).waitFor();
    await page.clock.install();
    await page.reload();
    await readiness.getByText(/^Wait until the cloud is READY \(running, \d+ s\)$/).waitFor();

    // Its event stream, once broken off, is let through again only when the test says: the installer answers first.
    const { release, stop: stopHolding } = await hold(page, "**/v1/installer/install/events*");
    await installer.kill9();
    await page.waitForFunction(() => document.getElementById("announce")!.textContent === "The event stream broke off; reconnecting.");
    await page.clock.fastForward(3_000);
    await page.locator("#notice").getByText(/^The installer did not answer/).waitFor();
    await readiness.getByText(/^Wait until the cloud is READY \(running, \d+ s when last heard\)$/).waitFor();
    const shown = await readiness.innerText();

    const again = await startAgain();
    link.to(again.port);
    await page.clock.fastForward(3_000);
    await page.locator("#notice").waitFor({ state: "hidden" });
    await Promise.all([page.waitForResponse((r) => r.url().endsWith("/v1/installer/status") && r.ok()), page.clock.fastForward(60_000)]);
    assert.equal(await readiness.innerText(), shown, "answering again before its events say how the step went, the installer has not made the step run through its downtime");
    assert.match(await text(page, "#attempt-times"), /running for \d+ s when last heard$/);

    release();
    await stopHolding();
    await page.getByRole("heading", { name: "Attempt 1 failed at readiness" }).waitFor();
    assert.match(await text(page, "#verdict"), /INTERRUPTED/);
    assert.equal(await page.locator("#verdict").getByRole("button", { name: "Download support bundle" }).count(), 1, "an interrupted attempt offers the support bundle beside its verdict (SPEC §11)");
    const events = (await again.request("/v1/installer/install/events?attempt=1")).json.events as { type: string; step?: string; time: string }[];
    assert.equal(events.at(-1)!.type, "attempt.finished");
    const started = Date.parse(events.find((e) => e.type === "step.started" && e.step === "readiness")!.time);
    const lastHeard = Date.parse(events.at(-2)!.time);
    assert.equal(await readiness.innerText(), `Wait until the cloud is READY (failed after ${Math.round((lastHeard - started) / 1000)} s)`, "it ended at its last event before the installer stopped");
    assert.deepEqual(errors, []);
  });

  /**
   * Wrong codes until the lock begins, `each` looking at the page after each. Each answer is waited for on the page,
   * not on the wire: a 401 shown late would overwrite nothing, but a 429 read before the page has shown it reads the
   * 401 before it.
   */
  async function wrongCodesUntilLocked(page: Page, each?: (i: number) => Promise<void>): Promise<void> {
    for (let i = 0; i <= LOCKOUT_POLICY.freeFailures; i++) {
      await page.evaluate(() => void (document.getElementById("sign-in-error")!.hidden = true));
      await signIn(page, `WRONG-${i}`);
      await page.locator("#sign-in-error").waitFor();
      await each?.(i);
    }
  }

  test("lockout: the 429 shows a live countdown from Retry-After and disables sign-in", async () => {
    const { installer } = await rig();
    const { page, errors } = await open(installer);
    await wrongCodesUntilLocked(page, async (i) => {
      assert.equal(await page.locator("#lockout").isVisible(), i === LOCKOUT_POLICY.freeFailures, `wrong code ${i + 1}`);
    });
    // Retry-After is what is left of the 30 s lock the fifth wrong code began: less on a slow machine.
    const locked = /^Too many wrong install codes from this address: sign-in is locked for (\d+) seconds?\.$/.exec(await text(page, "#sign-in-error"));
    assert.ok(locked && Number(locked[1]) >= 1 && Number(locked[1]) <= LOCKOUT_POLICY.firstLockSeconds, await text(page, "#sign-in-error"));
    const left = async () => Number(/^Try again in 0:(\d\d)\.$/.exec(await text(page, "#lockout"))?.[1]);
    const first = await left();
    assert.ok(first <= Number(locked[1]), `${first} s on the countdown, ${locked[1]} s in the message`);
    assert.ok(await page.getByRole("button", { name: "Sign in" }).isDisabled());
    await page.waitForFunction((before) => document.getElementById("lockout")!.textContent !== before, await text(page, "#lockout"));
    assert.ok((await left()) < first, "the countdown counts down");
    await checkScreen(page, "sign-in-locked-out");
    assert.deepEqual(errors, []);
  });

  test("lockout across a reload: the countdown and the disabled Sign in are back before any try, and its end is said as news, not as an error", async () => {
    const { installer } = await rig();
    const { page, errors } = await open(installer);
    await wrongCodesUntilLocked(page);
    await page.locator("#lockout").waitFor();
    await page.clock.install();
    const tries: string[] = [];
    page.on("request", (r) => void (r.url().includes("/v1/installer/") && tries.push(r.url())));
    await page.reload();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await page.locator("#lockout").getByText(/^Try again in 0:\d\d\.$/).waitFor();
    assert.ok(await page.getByRole("button", { name: "Sign in" }).isDisabled(), "Sign in stays disabled while the lock stands");
    assert.match(await text(page, "#sign-in-error"), /^Too many wrong install codes from this address: sign-in is locked for \d+ seconds?\.$/);
    assert.deepEqual(tries, [], "no try was needed to learn of the lock");

    await page.clock.fastForward(LOCKOUT_POLICY.firstLockSeconds * 1000);
    await page.locator("#sign-in-error").getByText("You can try again now.").waitFor();
    assert.equal(await page.locator("#sign-in-error").getAttribute("class"), "", "not in the error style");
    assert.ok(await page.getByRole("button", { name: "Sign in" }).isEnabled());
    assert.ok(await page.locator("#lockout").isHidden());
    assert.deepEqual(errors, []);
  });

  test("a node's text is shown written out, never obeyed: a right-to-left override, a zero-width space and an escape in a blocker's detail", async () => {
    const { installer } = await rig();
    const { page, errors } = await open(installer);
    await signIn(page, installer.code);
    await page.getByRole("heading", { name: "Configure this node" }).waitFor();
    const stopRewriting = await intercept(page, "**/v1/installer/status", async (route) => {
      const status = await (await route.fetch()).json();
      status.blockers = [{ code: "PAYLOAD_NOT_LOADED", detail: "the cloud said \u202eevil\u200b \u001b[2J; fix it" }];
      await route.fulfill({ json: status });
    });
    const shown = page.locator("#blockers").getByText("PAYLOAD_NOT_LOADED", { exact: false });
    await shown.waitFor();
    assert.equal(await page.locator("#blockers li").innerText(), "PAYLOAD_NOT_LOADED: the cloud said \\u202eevil\\u200b \\u001b[2J; fix it");
    await stopRewriting();
    assert.deepEqual(errors, []);
  });

  test("unattended: stage 1's node.yaml waits on a blocker, then starts by itself and the console follows it", async () => {
    const payload = join(await tempDir("stratum-console-payload-"), "payload");
    const nodeYaml = VALID_NODE_YAML.replace("hostname: node-01", "hostname: node-07");
    const { installer } = await rig({ scenario: "ready", handoff: nodeYaml, payload });
    const { page, errors } = await open(installer);
    await signIn(page, installer.code);
    await page.getByRole("heading", { name: "Unattended install" }).waitFor();
    assert.match(await text(page, "#unattended"), /^Unattended install\s+Stage 1 left node\.yaml on the partition labeled STRATUM, which the installer took on .*It validated, but blockers refuse the install.*starts by itself once the blockers clear\. Editing the draft .* ends this wait\./s);
    assert.match(await text(page, "#blockers"), /PAYLOAD_NOT_LOADED: /);
    // a real check is over too fast to see: /status answers a verification half-way for one poll
    const stopRewriting = await intercept(page, "**/v1/installer/status", async (route) => {
      const status = await (await route.fetch()).json();
      status.blockers = [{ code: "PAYLOAD_VERIFYING", detail: "Checking the payload's checksums.", progress: { doneBytes: 3 * 2 ** 30, totalBytes: 4 * 2 ** 30 } }];
      await route.fulfill({ json: status });
    });
    const bar = page.getByRole("progressbar", { name: "Payload checked: 75%" });
    await bar.waitFor();
    assert.deepEqual([await bar.getAttribute("value"), await bar.getAttribute("max")], [String(3 * 2 ** 30), String(4 * 2 ** 30)]);
    await checkScreen(page, "payload-verifying");
    await stopRewriting();
    assert.ok(await page.getByRole("button", { name: "Install", exact: true }).isDisabled());
    assert.equal(await page.getByRole("tab", { name: "node.yaml" }).getAttribute("aria-selected"), "true", "the draft is stage 1's node.yaml");
    assert.equal(await page.getByRole("textbox", { name: "node.yaml" }).inputValue(), nodeYaml);
    assert.ok(await page.locator("#panel-yaml").getByText("Saving hands the draft to you").isVisible());
    await checkScreen(page, "unattended-blocked");

    await makePayload(payload);
    await page.getByRole("heading", { name: "Install, attempt 1" }).waitFor();
    await page.getByRole("heading", { name: "Done: the node is installed" }).waitFor();
    assert.match(await text(page, "#unattended"), /It validated, so the installer started install attempt 1 by itself\./);
    await checkScreen(page, "unattended-started");
    assert.deepEqual(errors, []);
  });

  test("unattended: an invalid node.yaml is the draft, its errors shown with line:column", async () => {
    const { installer } = await rig({ handoff: "mode: single-node\nhostname: node_07\n" });
    await waitFor("the handoff taken", async () => ((await installer.request("/v1/installer/status")).json.unattended ? true : undefined));
    const { page, errors } = await open(installer);
    await signIn(page, installer.code);
    await page.getByRole("heading", { name: "Unattended install" }).waitFor();
    assert.match(await text(page, "#unattended"), /It did not validate, so nothing started\. It is the draft: fix it in the node\.yaml tab/);
    assert.match(await text(page, "#unattended"), /2:\d+ hostname: hostname "node_07" is not a valid RFC 1123 hostname/);
    assert.match(await text(page, "#yaml-errors"), /2:\d+ hostname: /);
    await checkScreen(page, "unattended-invalid");

    // Saved since, still invalid: the handoff's errors are told as the handoff's, no longer as the draft's.
    const yaml = page.getByRole("textbox", { name: "node.yaml" });
    await yaml.fill("mode: single-node\nhostname: node-07\n");
    await page.getByRole("button", { name: "Save node.yaml" }).click();
    await page.locator("#unattended").getByText("The draft has been changed since", { exact: false }).waitFor();
    assert.match(await text(page, "#unattended"), /It did not validate, so nothing started\. The draft has been changed since: these are the errors found when it was taken, not the draft's now/);
    assert.doesNotMatch(await text(page, "#unattended"), /fix it in the node\.yaml tab/);
    assert.match(await text(page, "#unattended"), /2:\d+ hostname: hostname "node_07"/);
    assert.doesNotMatch(await text(page, "#yaml-errors"), /node_07/, "the draft's own errors are the new ones");

    // Valid now: no error of the handoff's is listed as if it stood.
    await yaml.fill(VALID_NODE_YAML);
    await page.getByRole("button", { name: "Save node.yaml" }).click();
    await page.locator("#unattended").getByText("The draft has been changed since and validates now.", { exact: false }).waitFor();
    assert.equal(await page.locator("#unattended li").count(), 0);
    assert.deepEqual(errors, []);
  });

  test("review before erase: the disks by size, model, serial and stable path; node.yaml as it will be written; Install only once the erase is confirmed, by keyboard alone", async () => {
    const { installer } = await rig({ scenario: "ready" });
    await untilNoBlockers(installer);
    const hash = "$6$saltsalt$hRM5XZ86KXEw9UOmjigeVqFgULtFB2sgpC9lXQDfMib3Zgw7mEiUvBJI2EplzfAqxL5Vvwp2scFtv/uamSo5z0";
    const draft = { ...VALID_DRAFT, storage: { osdDevices: ["wwn-0x5002538f4312abcd", "S6ESNE0T612346"] }, admin: { ...VALID_DRAFT.admin, passwordHash: hash } };
    assert.equal((await installer.request("/v1/installer/config", { method: "PUT", body: draft })).json.valid, true);
    const { page, errors } = await open(installer);
    await signIn(page, installer.code);
    await page.getByRole("heading", { name: "Mode", exact: true }).waitFor();

    await page.getByRole("navigation", { name: "Steps" }).getByRole("button", { name: "Storage" }).click();
    assert.ok(await page.getByLabel("/dev/sdb").isChecked(), "a disk the draft names by WWN is the one chosen");
    assert.ok(await page.getByLabel("/dev/sdc").isChecked(), "and one named by serial");
    assert.equal(await text(page, "#disk-sdb-help"), "3.8 TB, SAMSUNG MZ7L33T8HBLT, SSD, serial S6ESNE0T612345. Stable path /dev/disk/by-id/wwn-0x5002538f4312abcd. Unused");
    assert.match(await text(page, "#disk-sda-help"), /serial S6KNNE0T500123\. Stable path \/dev\/disk\/by-id\/wwn-0x5002538f4200a001\. In use: has partitions sda1, sda2/);

    const review = page.getByRole("region", { name: "Review before you install" });
    await review.waitFor();
    const shown = await text(page, "#review-yaml");
    const rendered = (await installer.request("/v1/installer/config/node.yaml")).text;
    assert.equal(shown, rendered.replace(JSON.stringify(hash), '"[redacted]"').trim(), "the node.yaml the install writes, its secret hidden");
    assert.match(shown, /osd_devices:\n\s+- "\/dev\/disk\/by-id\/wwn-0x5002538f4312abcd"\n\s+- "\/dev\/disk\/by-id\/wwn-0x5002538f4312abce"/);
    assert.equal(await text(page, "#erase-count"), "2 disks will be erased");
    assert.deepEqual(await page.locator("#review-disks li").allInnerTexts(), [
      "/dev/sdb: 3.8 TB, SAMSUNG MZ7L33T8HBLT, SSD, serial S6ESNE0T612345. Stable path /dev/disk/by-id/wwn-0x5002538f4312abcd.",
      "/dev/sdc: 3.8 TB, SAMSUNG MZ7L33T8HBLT, SSD, serial S6ESNE0T612346. Stable path /dev/disk/by-id/wwn-0x5002538f4312abce.",
    ]);
    const install = page.getByRole("button", { name: "Install", exact: true });
    const confirm = page.getByLabel("I understand these disks will be erased");
    assert.ok(await install.isDisabled(), "Install waits for the erase to be confirmed");
    await assertLabelled(page);
    await checkScreen(page, "review");

    await confirm.check();
    assert.ok(await install.isEnabled());
    await page.getByLabel("/dev/sdc").uncheck();
    await page.getByRole("button", { name: /^Save( and continue)?$/ }).click();
    await page.waitForFunction(() => document.getElementById("erase-count")?.textContent === "1 disk will be erased");
    assert.equal(await confirm.isChecked(), false, "a confirmation holds for the disks it was given for");
    assert.ok(await install.isDisabled());

    await page.getByRole("navigation", { name: "Steps" }).getByRole("button", { name: "Admin" }).click();
    await page.getByRole("button", { name: "Save", exact: true }).focus();
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.activeElement?.id === "review");
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.id), "review-yaml", "node.yaml scrolls by keyboard");
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.id), "erase-confirm");
    await page.keyboard.press("Space");
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.id), "install-button");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Done: the node is installed" }).waitFor();
    assert.deepEqual((await installer.request("/v1/installer/config")).json.config.storage, { osdDevices: ["wwn-0x5002538f4312abcd"] });
    assert.deepEqual(errors, []);
  });

  test("a serial two NVMe namespaces share ticks neither: the draft's name is a row of its own, saying which disks it names", async () => {
    const installer = await lab.start({ args: ["--host-facts", await writeSharedSerialHostFacts(await tempDir("stratum-console-"))] });
    const put = await installer.request("/v1/installer/config", { method: "PUT", body: { ...VALID_DRAFT, storage: { osdDevices: ["PHAB123456781P6AGN"] } } });
    assert.equal(put.json.valid, false, put.text);
    const { page, errors } = await open(installer);
    await signIn(page, installer.code);
    await page.getByRole("heading", { name: "Mode", exact: true }).waitFor();
    await page.getByRole("navigation", { name: "Steps" }).getByRole("button", { name: "Storage" }).click();
    assert.equal(await page.getByLabel("/dev/nvme0n1", { exact: true }).isChecked(), false);
    assert.equal(await page.getByLabel("/dev/nvme0n2", { exact: true }).isChecked(), false);
    assert.ok(await page.getByLabel("PHAB123456781P6AGN", { exact: true }).isChecked());
    assert.equal(await text(page, "#disk-other-PHAB123456781P6AGN-help"), "names more than one disk: /dev/nvme0n1, /dev/nvme0n2");
    assert.deepEqual(errors, []);
  });

  test("a disk's serial and model with characters that show nothing (an invisible separator, a soft hyphen, a tag) are written out where the disks are chosen and reviewed: the disk does not read as its neighbour", async () => {
    const folder = await tempDir("stratum-console-");
    const facts = JSON.parse(await readFile(DEMO_HOST_FACTS, "utf8"));
    const sdb = facts.disks.find((disk: { name: string }) => disk.name === "sdb");
    Object.assign(sdb, { serial: "S6ESNE0T61\u20632346", model: "SAMSUNG MZ7L33T8\u00adHBLT\u{e0020}" });
    await writeFile(join(folder, "host-facts.json"), JSON.stringify(facts));
    const installer = await lab.start({ args: ["--host-facts", join(folder, "host-facts.json")] });
    await untilNoBlockers(installer);
    const put = await installer.request("/v1/installer/config", { method: "PUT", body: { ...VALID_DRAFT, storage: { osdDevices: ["/dev/sdb"] } } });
    assert.equal(put.json.valid, true, put.text);
    const { page, errors } = await open(installer);
    await signIn(page, installer.code);
    await page.getByRole("region", { name: "Review before you install" }).waitFor();
    const shown = "3.8 TB, SAMSUNG MZ7L33T8\\u00adHBLT\\u{e0020}, SSD, serial S6ESNE0T61\\u20632346";
    assert.equal(await text(page, "#review-disks li"), `/dev/sdb: ${shown}. Stable path /dev/disk/by-id/wwn-0x5002538f4312abcd.`);
    await page.getByRole("navigation", { name: "Steps" }).getByRole("button", { name: "Storage" }).click();
    assert.equal(await text(page, "#disk-sdb-help"), `${shown}. Stable path /dev/disk/by-id/wwn-0x5002538f4312abcd. Unused`);
    assert.match(await text(page, "#disk-sdc-help"), /, serial S6ESNE0T612346\./, "its neighbour, as it is");
    assert.deepEqual(errors, []);
  });

  test("time and history: the certificate before sign-in; elapsed times live, the readiness wait's countdown, 24-hour UTC; the log names each step once and leaves the final message to the verdict; every attempt reachable", async () => {
    const { installer, readiness, letFirstbootGo } = await rig({ scenario: "never", timeout: 4, gated: true });
    await untilNoBlockers(installer);
    assert.equal((await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT })).json.valid, true);
    const { page, errors } = await openElsewhere(installer);
    // Filled once the page's request for /tls is answered, which the page's load does not wait for.
    await page.waitForFunction(() => document.querySelector<HTMLTextAreaElement>("#tls-fingerprint")!.value !== "");
    assert.equal(await page.getByLabel("TLS SHA-256 fingerprint").inputValue(), installer.fingerprint, "compared before the code is typed");
    const notAfter = (await installer.request("/tls", { code: null })).json.notAfter as string;
    assert.equal(await text(page, "#tls-expiry"), `Valid until ${notAfter.slice(0, 10)} ${utc(notAfter)} UTC.`);
    await signIn(page, installer.code);
    await page.getByRole("button", { name: "Install", exact: true }).click();

    await page.locator("#steps li[data-step=firstboot].running").waitFor();
    assert.match(await text(page, "#steps li[data-step=firstboot]"), /\(running, \d+ s\)$/);
    assert.match(await text(page, "#steps li[data-step=preflight]"), /\(done in \d+ s\)$/);
    assert.match(await text(page, "#steps li[data-step=readiness]"), /\(waiting\)$/);
    const started = (await installer.request("/v1/installer/install/attempts")).json.attempts[0].startedAt;
    assert.match(await text(page, "#attempt-times"), new RegExp(`^Started ${utc(started)} UTC · running for \\d+ s$`));
    await letFirstbootGo();

    const wait = page.locator("#readiness-wait");
    await page.waitForFunction(() => / left /.test(document.getElementById("readiness-wait")!.textContent!));
    const deadline = (await installer.request("/v1/installer/install/report")).json.steps.find((s: { step: string }) => s.step === "readiness").deadline;
    const first = (await wait.innerText()).trim();
    const left = (said: string) => Number(/: (\d) s left of the 4 s wait\.$/.exec(said)![1]);
    assert.match(first, new RegExp(`^The wait ends at ${utc(deadline)} UTC: \\d s left of the 4 s wait\\.$`));
    await page.waitForFunction((before) => document.getElementById("readiness-wait")!.textContent !== before, first);
    assert.ok(left((await wait.innerText()).trim()) < left(first), "the countdown counts down");
    await checkScreen(page, "readiness-countdown");

    await page.getByRole("button", { name: "Recheck readiness" }).waitFor();
    assert.match(await text(page, "#steps li[data-step=readiness]"), /\(failed after [45] s\)$/);
    assert.match(await text(page, "#steps li[data-step=firstboot]"), /\(done in \d+ s\)$/);
    const finished = (await installer.request("/v1/installer/install/attempts")).json.attempts[0].finishedAt;
    assert.match(await text(page, "#attempt-times"), new RegExp(`^Started ${utc(started)} UTC · ended ${utc(finished)} UTC, after \\d+ s$`));
    assert.match(await wait.innerText(), /^Waited [45] s of the 4 s wait\.$/);

    const events = (await installer.request("/v1/installer/install/events?attempt=1")).json.events as { time: string; message: string }[];
    assert.deepEqual(await page.locator("#log time").allInnerTexts(), events.map((e) => utc(e.time)), "every line at its event's time, 24-hour UTC");
    const log = await text(page, "#log");
    assert.match(log, /\d\d:\d\d:\d\d firstboot: setting up network\n/);
    assert.match(log, /\d\d:\d\d:\d\d \[firstboot\] warning: clock not synced yet\n/);
    assert.doesNotMatch(log, /\[([a-z-]+)\] \1\b/, "no line names its step twice");
    const verdict = (await installer.request("/v1/installer/install/verdict?attempt=1")).json;
    assert.equal((await text(page, "main")).split(verdict.message).length - 1, 1, "the final message is shown once, in the verdict");
    assert.match(log, /\d\d:\d\d:\d\d attempt 1 failed at readiness after \d+ s: READINESS_TIMEOUT$/);

    await page.getByRole("button", { name: "Edit the config" }).click();
    await page.getByRole("button", { name: "Show attempt 1" }).click();
    await page.getByRole("heading", { name: "Attempt 1 failed at readiness" }).waitFor();

    readiness.setScenario("ready");
    await page.getByRole("button", { name: "Recheck readiness" }).click();
    await page.getByRole("heading", { name: "Done: the cloud is READY" }).waitFor();
    const cloud = new URL(readiness.url);
    await page.locator("#next").getByText(`The cloud's API answers at ${cloud.protocol}//10.20.0.11:${cloud.port}.`).waitFor();
    const picker = page.getByLabel("Show attempt");
    await page.waitForFunction(() => (document.getElementById("attempt-picker") as HTMLSelectElement).options.length === 2);
    assert.deepEqual((await picker.locator("option").allInnerTexts()).map((o) => o.replace(/started .*$/, "")), ["Attempt 2: readiness recheck, succeeded, ", "Attempt 1: install, failed, "]);

    await picker.focus();
    await picker.selectOption("1");
    await page.getByRole("heading", { name: "Install, attempt 1" }).waitFor();
    await page.getByRole("heading", { name: "Attempt 1 failed at readiness" }).waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.id), "attempt-picker", "focus stays where the person chose");
    assert.deepEqual(await page.locator("#steps li").evaluateAll((items) => items.map((li) => li.className)), ["succeeded", "succeeded", "succeeded", "failed"]);
    await page.locator("#log").getByText("firstboot: setting up network").waitFor();
    assert.equal(await page.getByRole("button", { name: "Recheck readiness" }).count(), 0, "a past attempt offers no next action");
    assert.match(await text(page, "#verdict"), /Attempt 2 came after this one/);
    await checkScreen(page, "attempt-history");
    assert.equal(await page.locator("#verdict").getByRole("button", { name: "Download support bundle" }).count(), 1, "a failed attempt picked offers the support bundle beside its verdict");
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download report" }).click()]);
    assert.equal(download.suggestedFilename(), "stratum-install-report-attempt-1.json");
    assert.equal(JSON.parse(await readFile((await download.path())!, "utf8")).verdict.code, "READINESS_TIMEOUT");

    await page.getByRole("button", { name: "Show attempt 2" }).click();
    await page.getByRole("heading", { name: "Readiness recheck, attempt 2" }).waitFor();
    await page.getByRole("heading", { name: "Done: the cloud is READY" }).waitFor();
    assert.deepEqual(errors, []);
  });

  test("the node.yaml tab: monospace, with line numbers that scroll with the text and mark a problem's line; a click on its line:column puts the cursor there, in view", async () => {
    const { installer } = await rig();
    const { page, errors } = await open(installer);
    await signIn(page, installer.code);
    await page.getByRole("tab", { name: "node.yaml" }).click();
    const yaml = page.getByRole("textbox", { name: "node.yaml" });
    const nodeYaml = "# a comment\n".repeat(30) + VALID_NODE_YAML.replace("hostname:", "hostnme:");
    await yaml.fill(nodeYaml);
    const lines = nodeYaml.split("\n").length;
    assert.equal(await text(page, "#yaml-lines"), Array.from({ length: lines }, (_, i) => i + 1).join("\n"));
    for (const selector of ["#yaml", "#yaml-lines"]) assert.match(await page.locator(selector).evaluate((el) => getComputedStyle(el).fontFamily), /mono/i);

    await page.getByRole("button", { name: "Save node.yaml" }).click();
    const location = page.getByRole("button", { name: "Line 32, column 1" });
    await location.waitFor();
    const marked = await page.locator("#yaml-lines .bad").evaluateAll((spans) => spans.map((s) => s.textContent!.trim()));
    assert.deepEqual(marked, ["1", "32"], "the problems' lines are marked (a missing key is the document's, at 1:1)");
    await yaml.evaluate((el) => (el.scrollTop = 0));
    await page.waitForFunction(() => document.getElementById("yaml-lines")!.scrollTop === 0);
    await location.click();
    const at = await yaml.evaluate((el: HTMLTextAreaElement) => {
      const lineHeight = parseFloat(getComputedStyle(el).lineHeight);
      const top = el.getBoundingClientRect().top + parseFloat(getComputedStyle(el).paddingTop) + 31 * lineHeight - el.scrollTop;
      const gutter = document.getElementById("yaml-lines")!;
      return {
        focused: document.activeElement === el,
        caret: el.selectionStart,
        inView: top >= el.getBoundingClientRect().top && top + lineHeight <= el.getBoundingClientRect().bottom,
        gutterAligned: Math.abs(gutter.getBoundingClientRect().top + parseFloat(getComputedStyle(gutter).paddingTop) + 31 * parseFloat(getComputedStyle(gutter).lineHeight) - gutter.scrollTop - top) < 1,
      };
    });
    assert.deepEqual(at, { focused: true, caret: "# a comment\n".length * 30 + "mode: single-node\n".length, inView: true, gutterAligned: true });
    await checkScreen(page, "yaml-lines");
    assert.deepEqual(errors, []);
  });

  test("a node.yaml of 300,000 lines (stage 1's, say) opens in the node.yaml tab: every line numbered, the problems' marked, and a line typed is numbered too", async () => {
    const { installer } = await rig();
    const nodeYaml = "#\n".repeat(300_000) + VALID_NODE_YAML.replace("hostname:", "hostnme:");
    const put = await installer.request("/v1/installer/config", { method: "PUT", body: nodeYaml, contentType: "application/yaml" });
    assert.equal(put.status, 200, put.text.slice(0, 300));
    const lines = nodeYaml.split("\n").length;
    const marked = [...new Set((put.json.errors as { line: number }[]).map((e) => e.line + "\n"))];
    assert.ok(marked.length > 0, put.text.slice(0, 300));
    const { page, errors } = await open(installer);
    await signIn(page, installer.code);
    // Bounds a hang only: a gutter of a node per line took minutes here.
    await page.waitForFunction((last) => document.getElementById("yaml-lines")!.textContent!.endsWith("\n" + last + "\n"), lines, { timeout: 60_000 });
    assert.deepEqual(await page.locator("#yaml-lines .bad").allTextContents(), marked);
    const yaml = page.getByRole("textbox", { name: "node.yaml" });
    await yaml.evaluate((el: HTMLTextAreaElement) => el.setSelectionRange(el.value.length, el.value.length));
    await yaml.press("Enter");
    await page.waitForFunction((last) => document.getElementById("yaml-lines")!.textContent!.endsWith("\n" + last + "\n"), lines + 1, { timeout: 60_000 });
    assert.deepEqual(await page.locator("#yaml-lines .bad").allTextContents(), marked, "the problems' lines are still marked");
    assert.deepEqual(errors, []);
  });

  test("a hyperconverged-init draft saved step by step with a mistake on each: the field errors beside their fields", async () => {
    const { installer } = await rig();
    const { page, errors } = await open(installer);
    await signIn(page, installer.code);
    await page.getByLabel("Hyperconverged: found a cluster (HA init)").check();
    await page.getByLabel("Hostname").fill("node_01");
    await page.getByRole("button", { name: "Save and continue" }).click();
    await invalid(page, "Hostname");
    await checkScreen(page, "mode-field-errors");
    await page.getByLabel("Hostname").fill("node-01");
    await saveStep(page, "Network");
    await page.getByLabel("Gateway").fill("10.20.0.1");
    await page.getByLabel("Cluster virtual IP (VIP)").fill("10.20.0.10");
    await saveStep(page, "Storage");
    await page.getByRole("button", { name: "Save and continue" }).click();
    await page.waitForFunction(() => document.getElementById("disks")!.querySelector("[data-error]"));
    assert.equal(await text(page, "#disks [data-error]"), "Choose at least one disk: Ceph keeps the cluster's data on the disks of a hyperconverged node\n" + await text(page, "#disks [data-error] .hint"));
    await checkScreen(page, "storage-field-errors");
    await page.getByLabel("/dev/sdb").check();
    await saveStep(page, "Cluster");
    await checkScreen(page, "cluster-init");
    await page.getByRole("button", { name: "Save and continue" }).click();
    await invalid(page, "Cluster name");
    await checkScreen(page, "cluster-field-errors");
    await page.getByLabel("Cluster name").fill("rack-a");
    await saveStep(page, "Admin");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.waitForFunction(() => document.getElementById("admin")!.querySelector("[data-error]"));
    const login = "Add an SSH key or a password hash, or nobody can log in to the node";
    assert.equal(await text(page, "#admin [data-error]"), login, "beside its legend the message says what to do, not that the legend needs a way to log in");
    assert.equal(await text(page, "#summary li"), `Admin › How the admin logs in: ${login}`);
    await checkScreen(page, "admin-field-errors");
    assert.deepEqual(errors, []);
  });

  test("a structured draft's unknown keys, however written, are listed and lead to the nearest field: a key \"dns[]\" and one of 200,000 characters, dotted", async () => {
    const { installer } = await rig();
    const long = "a.".repeat(100_000) + "a";
    const draft = { ...VALID_DRAFT, network: { ...VALID_DRAFT.network, "dns[]": ["10.20.0.3"] }, [long]: true };
    const put = await installer.request("/v1/installer/config", { method: "PUT", body: draft });
    // The long key's field cut as every answer cuts it (the draft keeps it whole).
    assert.deepEqual(put.json.errors.map((e: { field: string }) => e.field).sort(), [shownField(long), "network.dns[]"].sort(), put.text.slice(0, 500));
    const { page, errors } = await open(installer);
    await signIn(page, installer.code);
    await page.getByRole("heading", { name: "2 problems to fix" }).waitFor();
    const dns = page.locator("#summary li").filter({ hasText: "Network › DNS servers:" });
    assert.equal(await dns.count(), 1, await text(page, "#summary"));
    assert.ok((await page.locator("#summary li").allInnerTexts()).some((item) => item.startsWith(shownField(long))), "the long key is listed as the answer cuts it");
    await dns.getByRole("button").click();
    assert.equal(await page.evaluate(() => document.activeElement?.id), "f-network.dns-0");
    assert.deepEqual(errors, []);
  });

  test("a structured draft with values of the wrong type (a string for a list, a number for the host name, an object for the interface) opens in the form, each error listed to be fixed there", async () => {
    const { installer } = await rig();
    const draft = { ...VALID_DRAFT, hostname: 7, network: { ...VALID_DRAFT.network, interface: { name: "eno1" }, dns: "10.20.0.2" }, storage: { osdDevices: "/dev/sdb" } };
    const put = await installer.request("/v1/installer/config", { method: "PUT", body: draft });
    assert.deepEqual(put.json.errors.map((e: { field: string }) => e.field), ["hostname", "network.interface", "network.dns", "storage.osdDevices"], put.text);
    const { page, errors } = await open(installer);
    await signIn(page, installer.code);
    await page.getByRole("heading", { name: "4 problems to fix" }).waitFor();
    assert.equal(await page.getByLabel("Hostname").inputValue(), "7");
    await page.locator("#summary li").filter({ hasText: "Network › DNS servers:" }).getByRole("button").click();
    assert.equal(await page.evaluate(() => document.activeElement?.id), "f-network.dns-0");
    assert.equal(await page.getByLabel("DNS server 1").inputValue(), "10.20.0.2", "a list given as one string is that one item");
    assert.deepEqual(errors, []);
  });

  test("the readiness wait: the readiness step running, the cloud's checks as they are polled", async () => {
    const { installer, readiness } = await rig({ scenario: "never", timeout: 60 });
    await untilNoBlockers(installer);
    assert.equal((await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT })).json.valid, true);
    assert.equal((await installer.request("/v1/installer/install", { method: "POST" })).status, 202);
    const { page, errors } = await open(installer);
    await signIn(page, installer.code);
    await page.locator("#steps li[data-step=readiness].running").waitFor();
    await page.locator("#checks tbody tr").first().waitFor();
    await checkScreen(page, "readiness-wait");
    readiness.setScenario("ready");
    await page.getByRole("heading", { name: "Done: the node is installed" }).waitFor();
    assert.deepEqual(errors, []);
  });

  test("a draft changed elsewhere after its review is not installed: Install names the reviewed ETag, the 412 is told, the new review waits for a new confirmation", async () => {
    const { installer, page, errors } = await signedInOnReview({ ...VALID_DRAFT, storage: { osdDevices: ["/dev/sdb"] } });
    const confirm = page.getByLabel("I understand these disks will be erased");
    await confirm.check();
    const reviewed = (await installer.request("/v1/installer/config/review")).headers.etag as string;

    // The console's next review is held back, as if the change came between two of its polls.
    const { release, stop: stopHolding } = await hold(page, "**/v1/installer/config/review");
    assert.equal((await installer.request("/v1/installer/config", { method: "PATCH", body: { hostname: "node-02" } })).status, 200);
    const [request, response] = await Promise.all([
      page.waitForRequest("**/v1/installer/install"),
      page.waitForResponse("**/v1/installer/install"),
      page.getByRole("button", { name: "Install", exact: true }).click(),
    ]);
    assert.equal(request.headers()["if-match"], reviewed, "Install names the draft as reviewed");
    assert.equal(response.status(), 412);
    release();
    await stopHolding();

    await page.locator("#notice").getByText("The draft changed since you reviewed it").waitFor();
    await page.waitForFunction(() => document.getElementById("review-yaml")!.textContent!.includes("node-02"));
    assert.equal(await confirm.isChecked(), false, "the new review is confirmed anew");
    assert.ok(await page.getByRole("button", { name: "Install", exact: true }).isDisabled());
    assert.deepEqual((await installer.request("/v1/installer/install/attempts")).json.attempts, [], "nothing started");

    await confirm.check();
    await page.getByRole("button", { name: "Install", exact: true }).click();
    await page.getByRole("heading", { name: "Done: the node is installed" }).waitFor();
    assert.deepEqual(errors, []);
  });

  test("a save names the draft the form was filled from: a draft changed elsewhere meanwhile is not overwritten, the page says so and reloads it on request", async () => {
    const { installer } = await rig();
    assert.equal((await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT })).status, 200);
    const { page, errors } = await open(installer);
    await signIn(page, installer.code);
    await page.getByRole("heading", { name: "Mode", exact: true }).waitFor();
    await saveStep(page, "Network");
    const filledFrom = (await installer.request("/v1/installer/config")).headers.etag as string;

    const patched = await installer.request("/v1/installer/config", { method: "PATCH", body: { hostname: "node-99", network: { ntp: ["10.20.0.3"] } } });
    assert.equal(patched.status, 200, patched.text);
    await page.evaluate(() => void (document.getElementById("announce")!.textContent = ""));
    const [request, response] = await Promise.all([
      page.waitForRequest((r) => r.url().endsWith("/v1/installer/config") && r.method() === "PUT"),
      page.waitForResponse((r) => r.url().endsWith("/v1/installer/config") && r.request().method() === "PUT"),
      page.getByRole("button", { name: "Save and continue" }).click(),
    ]);
    assert.equal(request.headers()["if-match"], filledFrom, "the save names the draft the form was filled from");
    assert.equal(response.status(), 412);
    const changed = page.getByRole("region", { name: "The draft was changed elsewhere" });
    await changed.waitFor();
    await page.locator("#notice").getByText("Nothing was saved: the draft was changed elsewhere since this page loaded it.").waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.id), "draft-changed");
    assert.doesNotMatch(await page.locator("#announce").innerText(), /Saved/);
    const kept = (await installer.request("/v1/installer/config")).json.config;
    assert.deepEqual([kept.hostname, kept.network.ntp], ["node-99", ["10.20.0.3"]], "the other change stands");
    await checkScreen(page, "draft-changed-elsewhere");

    await changed.getByRole("button", { name: "Reload the draft" }).click();
    await changed.waitFor({ state: "hidden" });
    assert.equal(await page.getByLabel("NTP server 1").inputValue(), "10.20.0.3", "the form refilled from the draft as saved now");
    await page.getByRole("button", { name: "Save and continue" }).click();
    await page.getByRole("heading", { name: "Storage", exact: true }).waitFor();
    await page.getByRole("button", { name: "Back", exact: true }).click();
    await page.getByRole("button", { name: "Back", exact: true }).click();
    assert.equal(await page.getByLabel("Hostname").inputValue(), "node-99");
    const saved = (await installer.request("/v1/installer/config")).json.config;
    assert.deepEqual([saved.hostname, saved.network.ntp], ["node-99", ["10.20.0.3"]], "saved over the draft the page reloaded");
    assert.deepEqual(errors, []);
  });

  test("the support bundle from the header, before any attempt and by keyboard: said while it downloads, a .tar.gz named for the host with its manifest; a failure says why", async () => {
    const { installer } = await rig();
    const { page, errors } = await open(installer);
    await page.getByLabel("Install code").waitFor();
    assert.equal(await page.getByRole("button", { name: "Download support bundle" }).count(), 0, "not before sign-in");
    await signIn(page, installer.code);
    await page.getByRole("heading", { name: "Configure this node" }).waitFor();
    const button = page.getByRole("banner").getByRole("button", { name: "Download support bundle" });
    const said = page.getByRole("banner").getByRole("status");

    const { release, stop: stopHolding } = await hold(page, "**/v1/installer/support-bundle");
    await button.focus();
    await page.keyboard.press("Enter");
    await said.getByText("Downloading the support bundle…").waitFor();
    assert.equal(await button.getAttribute("aria-disabled"), "true", "a second click meanwhile is ignored");
    await checkScreen(page, "support-bundle-downloading");
    // Waited for from here: the download cannot begin while its request is held, and the wait's own timeout must
    // not run through the checks above on a slow machine.
    const downloaded = page.waitForEvent("download");
    release();
    const bundle = await unpackBundle(await downloaded);
    await stopHolding();
    assert.match(bundle.name, await bundleName(installer));
    assert.equal(bundle.manifest.hostname, (await installer.request("/v1/installer/status")).json.hostname);
    assert.deepEqual(bundle.manifest.files.filter((f) => f.path.startsWith("attempts/")), [], "no attempt yet");
    await said.getByText("Support bundle downloaded.").waitFor();
    assert.equal(await button.getAttribute("aria-disabled"), null);
    assert.equal(await page.evaluate(() => document.activeElement?.id), "bundle-button", "focus stays on the button");

    const stopCutting = await intercept(page, "**/v1/installer/support-bundle", (route) => route.abort());
    await page.keyboard.press("Enter");
    await said.getByText(/^The support bundle did not download: the installer did not answer \(.+\)\. Check that it still runs, then try again\.$/).waitFor();
    await checkScreen(page, "support-bundle-failed");
    await stopCutting();
    assert.deepEqual(errors, []);
  });

  test("a firstboot of 100,000 lines replayed: the log takes them in batches, keeps the newest 2,000 in view at its end, and the verdict shows", async () => {
    const lines = 100_000;
    const { installer } = await rig({ scenario: "ready", firstboot: `#!/bin/sh\nseq -f "firstboot: flood line %.0f" 1 ${lines}\n` });
    await untilNoBlockers(installer);
    assert.equal((await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT })).json.valid, true);
    assert.equal((await installer.request("/v1/installer/install", { method: "POST" })).status, 202);
    await waitFor("the verdict", async () => ((await installer.request("/v1/installer/install/verdict?attempt=1")).status === 200 ? true : undefined), 120_000);
    const { page, errors } = await open(installer);
    await signIn(page, installer.code);
    // A bound on a hang, not a measure: one layout of the log per event took minutes here.
    await page.getByRole("heading", { name: "Done: the node is installed" }).waitFor({ timeout: 60_000 });
    const log = await page.locator("#log").evaluate((el) => ({
      lines: el.childElementCount,
      last: el.lastElementChild!.textContent!.replace(/^\S+ /, ""),
      flood: [...el.children].filter((line) => / flood line /.test(line.textContent!)).map((line) => Number(/(\d+)$/.exec(line.textContent!)![1])).pop(),
      atEnd: el.scrollHeight - el.scrollTop - el.clientHeight < 2,
    }));
    assert.match(log.last, /^attempt 1 succeeded after \d+ s$/);
    assert.deepEqual({ ...log, last: undefined }, { lines: 2000, last: undefined, flood: lines, atEnd: true });
    assert.deepEqual(errors, []);
  });

  test("a firstboot's 16 KiB line in a FIRSTBOOT_FAILED verdict, the log, a blocker and the unattended notice wraps: the page is no wider than the window", async () => {
    const { page, errors } = await signedInOnFailure({ firstboot: "#!/bin/sh\nhead -c 20000 /dev/zero | tr '\\0' x\necho\nexit 1\n" }, "firstboot");
    /** The innermost elements that stick out sideways, and by how much the page does. */
    const wide = () => page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      const out = [...document.querySelectorAll<HTMLElement>("main *")].filter((el) => el.offsetParent !== null &&
        (el.getBoundingClientRect().right > width + 1 || (getComputedStyle(el).overflowX === "visible" && el.scrollWidth > el.clientWidth + 1)));
      return { by: document.documentElement.scrollWidth - width, out: out.filter((el) => !out.some((inner) => inner !== el && el.contains(inner))).map((el) => el.id || `${el.parentElement!.id || el.parentElement!.tagName} > ${el.tagName}`) };
    });
    assert.match(await text(page, "#verdict"), /FIRSTBOOT_FAILED\s+firstboot exited with code 1; last output: x{1000}/);
    for (const width of [1024, 375]) {
      await page.setViewportSize({ width, height: 768 });
      assert.deepEqual(await wide(), { by: 0, out: [] }, `the verdict no wider than ${width} px`);
    }

    const long = "y".repeat(16384);
    const stopRewriting = await intercept(page, "**/v1/installer/status", async (route) => {
      const status = await (await route.fetch()).json();
      status.blockers = [{ code: "PAYLOAD_NOT_LOADED", detail: long }];
      status.unattended = { state: "invalid", origin: long, takenAt: new Date().toISOString(), autoStart: false, errors: [{ field: "hostname", message: long, line: 2, column: 1 }] };
      await route.fulfill({ json: status });
    });
    await page.getByRole("button", { name: "Edit the config" }).click();
    await page.locator("#blockers").getByText("PAYLOAD_NOT_LOADED", { exact: false }).waitFor();
    await page.getByRole("heading", { name: "Unattended install" }).waitFor();
    for (const width of [1024, 375]) {
      await page.setViewportSize({ width, height: 768 });
      assert.deepEqual(await wide(), { by: 0, out: [] }, `the blocker and the unattended notice no wider than ${width} px`);
    }
    await stopRewriting();
    assert.deepEqual(errors, []);
  });

  test("the report downloaded from the page is the API's, escaped as the API escapes it: a firstboot's right-to-left override and 8-bit CSI are written out in the file, not raw", async () => {
    const { installer, page, errors } = await signedInOnFailure({ firstboot: "#!/bin/sh\nprintf 'disk \\342\\200\\256sdb\\342\\200\\254 \\302\\2332J done\\n'\nexit 1\n" }, "firstboot");
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download report" }).click()]);
    const file = await readFile((await download.path())!, "utf8");
    const api = await installer.request("/v1/installer/install/report?attempt=1");
    assert.match(api.text, /disk \\u202esdb\\u202c \\u009b2J done/, "the API's own answer writes them out");
    assert.match(file, /disk \\u202esdb\\u202c \\u009b2J done/);
    assert.doesNotMatch(file, /[\u0080-\u009f\u202a-\u202e]/);
    assert.deepEqual(JSON.parse(file), api.json, "the same report once parsed");
    assert.deepEqual(errors, []);
  });

  test("a host name as long as RFC 1123 allows (253 characters, four labels) wraps in the header: the page is no wider than the window", async () => {
    const { installer } = await rig();
    const hostname = ["a".repeat(63), "b".repeat(63), "c".repeat(63), "d".repeat(61)].join(".");
    assert.equal((await installer.request("/v1/installer/config", { method: "PUT", body: { ...VALID_DRAFT, hostname } })).json.config.hostname, hostname);
    const { page, errors } = await open(installer);
    await signIn(page, installer.code);
    await page.locator("#where").getByText(hostname, { exact: false }).waitFor();
    for (const width of [1024, 375]) {
      await page.setViewportSize({ width, height: 768 });
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0, `no wider than ${width} px`);
    }
    assert.deepEqual(errors, []);
  });

  test("the review and the header show outside text written out: a right-to-left override in an SSH key's comment or the host's name turns nothing around", async () => {
    const { installer } = await rig();
    await untilNoBlockers(installer);
    const key = SSH_KEY.replace("ops@example", "ops\u202e@example");
    const put = await installer.request("/v1/installer/config", { method: "PUT", body: { ...VALID_DRAFT, admin: { sshAuthorizedKeys: [key] } } });
    assert.equal(put.json.valid, true, put.text);
    const { page, errors } = await open(installer);
    const stopRewriting = await intercept(page, "**/v1/installer/status", async (route) => {
      const status = await (await route.fetch()).json();
      status.hostname = "node\u202e-01";
      await route.fulfill({ json: status });
    });
    await signIn(page, installer.code);
    await page.getByRole("region", { name: "Review before you install" }).waitFor();
    assert.match(await text(page, "#where"), /^node\\u202e-01 · configuring/);
    await stopRewriting();
    const shown = await page.locator("#review-yaml").textContent();
    assert.ok(shown!.includes("ops\\u202e@example"), shown!);
    assert.ok(!shown!.includes("\u202e"), "no override left to obey");
    assert.deepEqual(errors, []);
  });

  test("Edit the config on a failed verdict, the draft valid: focus moves to the form's step heading", async () => {
    const { page, errors } = await signedInOnFailure({ scenario: "never", timeout: 1 }, "readiness");
    await page.getByRole("button", { name: "Edit the config" }).click();
    await page.getByRole("heading", { name: "Configure this node" }).waitFor();
    await page.waitForFunction(() => document.activeElement !== document.body);
    assert.equal(await page.evaluate(() => document.activeElement?.id), "s0", "the form's first step heading");
    assert.deepEqual(errors, []);
  });

  test("edits not saved hold Install back, saying so: a hostname typed and not saved, then node.yaml edited and not saved; once saved, Install installs what was saved", async () => {
    const { installer, page, errors } = await signedInOnReview(VALID_DRAFT);
    const install = page.getByRole("button", { name: "Install", exact: true });
    await page.waitForFunction(() => !(document.getElementById("install-button") as HTMLButtonElement).disabled);

    await page.getByLabel("Hostname").fill("node-09");
    await page.waitForFunction(() => (document.getElementById("install-button") as HTMLButtonElement).disabled);
    assert.match(await text(page, "#readiness-of-draft"), /^Unsaved changes in the guided form: save them first\.$/);
    await page.getByLabel("Hostname").fill("node-01");
    await page.waitForFunction(() => !(document.getElementById("install-button") as HTMLButtonElement).disabled);
    assert.match(await text(page, "#readiness-of-draft"), /^The draft is valid/, "the form as saved again");

    await page.getByRole("tab", { name: "node.yaml" }).click();
    const yaml = page.getByRole("textbox", { name: "node.yaml" });
    await yaml.fill((await yaml.inputValue()).replace('"node-01"', '"node-08"'));
    await page.waitForFunction(() => (document.getElementById("install-button") as HTMLButtonElement).disabled);
    assert.match(await text(page, "#readiness-of-draft"), /^Unsaved changes in the node\.yaml tab: save them first\.$/);
    await page.getByRole("button", { name: "Save node.yaml" }).click();
    await page.waitForFunction(() => document.getElementById("review-yaml")!.textContent!.includes("node-08"));
    await page.waitForFunction(() => !(document.getElementById("install-button") as HTMLButtonElement).disabled);
    await install.click();
    await page.getByRole("heading", { name: "Done: the node is installed" }).waitFor();
    assert.match((await installer.request("/v1/installer/install/report")).json.config.yaml, /^hostname: "node-08"$/m, "what was saved is installed");
    assert.deepEqual(errors, []);
  });

  test("a node.yaml saved marks only itself saved: guided-form edits it does not hold still hold Install back, saying where, whichever was edited first", async () => {
    const { installer, page, errors } = await signedInOnReview(VALID_DRAFT);
    const enabled = () => page.waitForFunction(() => !(document.getElementById("install-button") as HTMLButtonElement).disabled);
    const disabled = () => page.waitForFunction(() => (document.getElementById("install-button") as HTMLButtonElement).disabled);
    const reviewed = (hostname: string) => page.waitForFunction((name) => document.getElementById("review-yaml")!.textContent!.includes(name), hostname);
    const formTab = page.getByRole("tab", { name: "Guided form" });
    const yamlTab = page.getByRole("tab", { name: "node.yaml" });
    const yaml = page.getByRole("textbox", { name: "node.yaml" });
    const hostname = page.getByLabel("Hostname");
    const setHostname = async (from: string, to: string) => yaml.fill((await yaml.inputValue()).replace(from, to));
    const draft = async () => (await installer.request("/v1/installer/config")).json;
    await enabled();

    // the draft made a raw node.yaml from the form as saved: the form's own edits come after it
    await yamlTab.click();
    await setHostname('"node-01"', '"node-08"');
    await page.getByRole("button", { name: "Save node.yaml" }).click();
    await reviewed("node-08");
    await enabled();

    // the form edited first, then node.yaml (the draft's own, without the form's edit) saved
    await formTab.click();
    await hostname.fill("node-09");
    await disabled();
    await yamlTab.click();
    assert.doesNotMatch(await yaml.inputValue(), /node-09/, "the tab holds the draft's node.yaml, not the form's edit");
    await setHostname('"node-08"', '"node-07"');
    await page.getByRole("button", { name: "Save node.yaml" }).click();
    await reviewed("node-07");
    assert.match(await text(page, "#readiness-of-draft"), /^Unsaved changes in the guided form: save them first\.$/, "the form's edit was not saved");
    assert.equal(await page.locator("#install-button").isDisabled(), true);
    assert.equal(await page.locator("#announce").textContent(), "Saved. The draft is valid. Unsaved changes in the guided form: save them first.");
    const saved = await draft();
    assert.equal(saved.source, "yaml", "the draft is the node.yaml saved");
    assert.match(saved.yaml, /^hostname: "node-07"$/m);
    await formTab.click();
    assert.equal(await hostname.inputValue(), "node-09", "the form's edit is still on screen, not dropped without a word");
    assert.equal(await page.locator("#form-source").isVisible(), true, "saving the form replaces the node.yaml, as the form says");

    // saving the form is saving its edits
    await saveStep(page, "Network");
    await reviewed("node-09");
    await enabled();
    assert.match(await text(page, "#readiness-of-draft"), /^The draft is valid/);
    await page.getByRole("button", { name: "Back", exact: true }).click();

    // node.yaml edited first (made from the form as saved), then the form, then node.yaml saved: the form's edit is not in it
    await yamlTab.click();
    await setHostname('"node-09"', '"node-06"');
    await formTab.click();
    await hostname.fill("node-05");
    await page.waitForFunction(() => document.getElementById("readiness-of-draft")!.textContent === "Unsaved changes in the guided form and the node.yaml tab: save them first.");
    await yamlTab.click();
    assert.doesNotMatch(await yaml.inputValue(), /node-05/, "the tab keeps its own edits");
    await page.getByRole("button", { name: "Save node.yaml" }).click();
    await reviewed("node-06");
    assert.match(await text(page, "#readiness-of-draft"), /^Unsaved changes in the guided form: save them first\.$/, "the form's edit was not saved");
    assert.equal(await page.locator("#install-button").isDisabled(), true);
    assert.deepEqual(errors, []);
  });

  test("the browser's Back and Forward go through the steps the person moved to, keeping what is on screen; a reload shows the step the address names; while an attempt runs, Back stays on it", async () => {
    const { installer, letFirstbootGo } = await rig({ scenario: "ready", gated: true });
    await untilNoBlockers(installer);
    assert.equal((await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT })).json.valid, true);
    const { page, errors } = await open(installer);
    await signIn(page, installer.code);
    const step = (name: string) => page.getByRole("heading", { name, exact: true });
    await step("Mode").waitFor();
    await saveStep(page, "Network");
    await page.getByLabel("Gateway").fill("10.20.0.254");
    await page.getByRole("navigation", { name: "Steps" }).getByRole("button", { name: "Storage" }).click();
    await step("Storage").waitFor();

    await page.goBack();
    await step("Network").waitFor();
    assert.equal(await page.getByLabel("Gateway").inputValue(), "10.20.0.254", "the edit not saved is still on screen");
    await page.goBack();
    await step("Mode").waitFor();
    assert.match(page.url(), /\/\?step=mode$/);
    await page.goForward();
    await step("Network").waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.id), "s1", "focus on the step shown");
    assert.match(page.url(), /\/\?step=network$/);

    await page.reload();
    await step("Network").waitFor();
    assert.equal(await page.getByLabel("Gateway").inputValue(), "10.20.0.1", "the form as saved");
    await page.getByRole("button", { name: "Install", exact: true }).click();
    await page.getByRole("heading", { name: "Install, attempt 1" }).waitFor();
    await page.locator("#steps li[data-step=firstboot].running").waitFor();
    assert.match(page.url(), /\/\?attempt=1$/);
    await page.goBack();
    await page.waitForURL(/\/\?attempt=1$/);
    assert.ok(await page.getByRole("heading", { name: "Install, attempt 1" }).isVisible(), "the attempt runs: its view stays");
    assert.equal(await page.locator("#configure").isVisible(), false);
    await letFirstbootGo();
    await page.getByRole("heading", { name: "Done: the node is installed" }).waitFor();
    assert.deepEqual(errors, []);
  });

  test("every screen listed was reached and checked", { skip: someTestsOnly && "some tests only: they reach some screens only" }, () => {
    assert.deepEqual([...checked].sort(), [...SCREENS].sort(), "each screen in SCREENS is reached and checked, and each checked screen is listed there");
  });
});
