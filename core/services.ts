import { modeOptions, type ModeOption, type ValidationContext } from "./config/index.ts";
import { AttemptRunner } from "./attempts/runner.ts";
import { stopLeftoverFirstboots } from "./attempts/steps/firstboot.ts";
import { createAuthenticator, type Authenticator } from "./auth.ts";
import { createDraftService, type DraftService } from "./draft.ts";
import type { Blocker } from "./errors.ts";
import type { HostFacts } from "./host.ts";
import { createInstallService, type InstallService } from "./install.ts";
import type { Logger } from "./log.ts";
import { DEFAULT_MODE, type Mode } from "./model.ts";
import type { Redactor } from "./redact.ts";
import { PayloadManager } from "./payload/payload.ts";
import type { Settings } from "./settings.ts";
import { computeStatus, type Status } from "./status.ts";
import type { Store } from "./store.ts";
import { UnattendedService } from "./unattended.ts";

export interface Options {
  modes: ModeOption[];
  host: HostFacts;
  release: string | null;
  defaults: { mode: Mode; hostname: string; network: { interface?: string } };
}

/** What the HTTP layer calls: built once from the injected deps. */
export interface Services {
  version: string;
  log: Logger;
  auth: Authenticator;
  draft: DraftService;
  install: InstallService;
  runner: AttemptRunner;
  payload: PayloadManager;
  status(): Status;
  options(): Options;
  /** Loads the payload, marks interrupted attempts, takes a handoff node.yaml; returns notices for the banner. */
  start(): Promise<string[]>;
  stop(): Promise<void>;
}

export interface ServiceDeps {
  version: string;
  /** Known once the server listens. */
  url: () => string;
  settings: Settings;
  store: Store;
  installCode: string;
  host: HostFacts;
  log: Logger;
  redactor: Redactor;
  now: () => Date;
}

export function createServices(deps: ServiceDeps): Services {
  const { store, host } = deps;
  const payload = new PayloadManager({ folder: deps.settings.payload, log: deps.log });
  const release = () => payload.release();
  const blockers = (): Blocker[] => payload.blockers();

  let context: ValidationContext = { host, release: release() };
  const validationContext = () => {
    const current = release();
    if (context.release !== current) context = { host, release: current };
    return context;
  };

  let runner: AttemptRunner | undefined;
  const draft = createDraftService(store, validationContext, deps.now, () => runner?.refuseWhileBusy("changing the draft"));
  runner = new AttemptRunner({
    store,
    draft,
    settings: deps.settings,
    blockers,
    payloadVersion: () => release().release,
    redactor: deps.redactor,
    log: deps.log,
    now: deps.now,
    personActed: () => unattended.personActed(),
  });

  const install = createInstallService(runner, host);
  const unattended = new UnattendedService({
    store,
    draft,
    blockers,
    startInstall: async () => (await install.start("install", "unattended")).attempt,
    handoff: deps.settings.handoff,
    installRecord: deps.settings.installRecord,
    log: deps.log,
    now: deps.now,
  });
  draft.onPersonChange(() => unattended.personActed());
  payload.onChange(() => {
    unattended.blockersChanged().catch((err: unknown) => deps.log.error("unattended decision failed", { error: String(err) }));
  });

  return {
    version: deps.version,
    log: deps.log,
    auth: createAuthenticator(store, deps.installCode, () => deps.now().getTime()),
    draft,
    install,
    runner,
    payload,
    async start() {
      const leftovers = await stopLeftoverFirstboots(
        store.data.attempts,
        async (attempt, event) => {
          (await runner.eventLog(attempt)).append(event);
        },
        () => store.write(),
      );
      await payload.start();
      const interrupted = await runner.recoverInterrupted();
      const taken = await unattended.takeOver();
      return [
        ...leftovers,
        ...interrupted.map((a) => `attempt ${a.attempt} was interrupted at ${a.step ?? "its start"}; its verdict says ${a.verdict?.next}`),
        ...(taken ? [taken] : []),
      ];
    },
    async stop() {
      await Promise.all([payload.stop(), runner.shutdown()]);
    },
    status: () =>
      computeStatus({
        version: deps.version,
        url: deps.url(),
        hostHostname: host.hostname,
        draft: draft.analysis(),
        attempts: store.data.attempts,
        blockers: blockers(),
        unattended: store.data.unattended,
      }),
    options: () => ({
      modes: modeOptions(validationContext()),
      host,
      release: release().release,
      defaults: {
        mode: DEFAULT_MODE,
        hostname: host.hostname,
        network: { interface: (host.interfaces.find((i) => i.up && i.addresses.length > 0) ?? host.interfaces[0])?.name },
      },
    }),
  };
}
