import { setMaxListeners } from "node:events";
import { modeOptions, type ModeOption, type ValidationContext } from "../config/index.ts";
import { createAttempts, stoppingBlocker, type Attempts, type Stopped } from "../attempts/index.ts";
import { unrecordedFirstboot } from "../attempts/event-log.ts";
import { createAuthenticator, type Authenticator } from "../access/auth.ts";
import { createCluster, type Cluster } from "../cluster/service.ts";
import { createDraftService, type DraftService } from "../draft/index.ts";
import type { CertificateFacts } from "../access/tls.ts";
import type { Blocker } from "../common/errors.ts";
import type { HostFacts } from "../host/facts.ts";
import type { Logger } from "../common/log.ts";
import { DEFAULT_MODE, type Mode } from "../common/model.ts";
import type { Redactor } from "../secrets/index.ts";
import { createPayloadManager } from "../payload/payload.ts";
import type { Settings } from "../common/settings.ts";
import { computeStatus, type Status } from "./status.ts";
import type { StoreData } from "../state/records.ts";
import type { Store } from "../state/store.ts";
import { stateLayout } from "../state/layout.ts";
import { createUnattendedService } from "../unattended/service.ts";
import type { SupportBundle } from "../support/index.ts";

const STORE_KEYS = ["draft", "attempts", "lockout", "unattended", "handoff", "cluster"] as const satisfies ReadonlyArray<Exclude<keyof StoreData, "schemaVersion">>;

interface Options {
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
  attempts: Attempts;
  cluster: Pick<Cluster, "check" | "joinToken">;
  status(): Status;
  /** The certificate this API serves; undefined when it serves none (an in-process app). */
  tls(): CertificateFacts | undefined;
  options(): Options;
  /** The support bundle (SPEC §11), read from the state dir while everything else goes on. */
  supportBundle(): Promise<SupportBundle>;
  /** Recovers interrupted attempts, loads the payload, takes a handoff node.yaml; returns notices for the banner. */
  start(): Promise<string[]>;
  /** Stops them all (a running attempt's firstboot group included); then aborts `stopped`. What the stop had to do. */
  stop(): Promise<Stopped>;
  /** Aborted once stop() stopped everything: an open event stream then ends, saying the installer stops. */
  stopped: AbortSignal;
}

interface ServicesDeps {
  version: string;
  /** Known once the server listens. */
  url: () => string;
  /** The served certificate, once loaded. */
  tls?: () => CertificateFacts | undefined;
  settings: Settings;
  store: Store;
  installCode: string;
  host: HostFacts;
  log: Logger;
  redactor: Redactor;
  /** The one clock: timestamps and deadlines. */
  now: () => Date;
  /** The store was kept aside at this start (it did not parse). */
  recordsLost?: boolean;
}

export function createServices(deps: ServicesDeps): Services {
  const { store, host, settings, now, log } = deps;
  const payload = createPayloadManager({ folder: settings.payload, log });
  const release = () => payload.release();
  /** Found at start: an install whose record the store lost (core/attempts/event-log.ts). */
  let earlierInstall: Blocker[] = [];
  // Set as a stop begins: a request still answered on a connection the stop has not closed yet starts no install, which
  // the exit would cut (its firstboot left running, unsupervised).
  let stopping: Blocker[] = [];
  const blockers = (): Blocker[] => [...payload.blockers(), ...earlierInstall, ...stopping];

  let context: ValidationContext = { host, release: release() };
  const validationContext = () => {
    const current = release();
    if (context.release !== current) context = { host, release: current };
    return context;
  };

  // A person changed the draft or started an attempt: an unattended install that waits stops waiting.
  const personActed = () => unattended.personActed();
  const attemptRecords = store.slice("attempts");
  const draft = createDraftService({ draft: store.slice("draft"), context: validationContext, now, attempts: () => attemptRecords.get(), personActed, log });
  const cluster = createCluster({
    cluster: store.slice("cluster"),
    draft,
    attempts: () => attemptRecords.get(),
    release: () => release().release,
    readinessUrl: settings.readinessUrl,
    now,
    log,
  });
  const attempts = createAttempts({
    attempts: attemptRecords,
    draft,
    blockers,
    stopping: () => stopping.length > 0,
    settings,
    host,
    payloadVersion: () => release().release,
    redactor: deps.redactor,
    log,
    now,
    personActed,
    cluster,
    recordsLost: deps.recordsLost,
  });
  const unattended = createUnattendedService({
    unattended: store.slice("unattended"),
    handoff: store.slice("handoff"),
    draft,
    attempts,
    blockers,
    handoffPath: settings.handoff,
    installRecord: settings.installRecord,
    log,
    now,
  });
  payload.onChange(() => {
    unattended.blockersChanged().catch((err: unknown) => log.error("unattended decision failed", { error: String(err) }));
  });

  const stopped = new AbortController();
  // One listener an open event stream: eleven streams are no leak to warn of in the journal.
  setMaxListeners(0, stopped.signal);
  const auth = createAuthenticator({ lockout: store.slice("lockout"), installCode: deps.installCode, now, log });
  const status = () =>
    computeStatus({
      version: deps.version,
      url: deps.url(),
      hostHostname: host.hostname,
      draft: draft.analysis(),
      attempts: attemptRecords.get(),
      blockers: blockers(),
      unattended: unattended.record(),
    });

  return {
    version: deps.version,
    log,
    auth,
    draft,
    attempts,
    cluster,
    // In this order: attempts a killed installer left are settled before the payload is judged, and the
    // unattended take-over decides with the payload's blockers known.
    async start() {
      const notices: string[] = [];
      const lost = await unrecordedFirstboot(settings.stateDir, attemptRecords.get().length);
      if (lost) {
        const what = lost.ended
          ? `firstboot ran (attempt ${lost.attempt}, ${lost.time}), but its store has no record of that attempt (lost, or kept aside as damaged): an install now would run firstboot again.`
          : `firstboot started (attempt ${lost.attempt}, ${lost.time}) and not how it ended, and its store has no record of that attempt (lost, or kept aside as damaged): firstboot may have run, and an install now would run it again. Check the node first.`;
        const detail = `This node's events show that ${what} Restore the store (installer.json) from a backup; or, to install this node again on purpose, move ${stateLayout(settings.stateDir).events} away and restart the installer.`;
        earlierInstall = [{ code: "EARLIER_INSTALL_FOUND", detail }];
        notices.push(detail);
      }
      for (const service of [attempts, payload, unattended]) notices.push(...(await service.start()));
      return notices;
    },
    async stop() {
      stopping = [stoppingBlocker("install")];
      auth.stop();
      const [, stoppedAttempts] = await Promise.all([payload.stop(), attempts.stop(), unattended.stop()]);
      stopped.abort();
      return stoppedAttempts;
    },
    stopped: stopped.signal,
    tls: () => deps.tls?.(),
    status,
    async supportBundle() {
      // Loaded when a bundle is asked for: the tar writer and the bundle's code stay off the start and the first request.
      const { operatorSecrets, payloadFacts, readState, writeSupportBundle } = await import("../support/index.ts");
      const records = Object.fromEntries(STORE_KEYS.map((key) => [key, store.slice(key).get()]));
      const state = await readState(settings.stateDir, { schemaVersion: 1, ...records } as StoreData);
      const operator = await operatorSecrets(settings.tlsKey);
      return writeSupportBundle({
        state,
        madeBy: "GET /v1/installer/support-bundle",
        version: deps.version,
        now: now(),
        hostname: host.hostname,
        status: status(),
        host,
        payload: payloadFacts(payload.state(), settings.payload, "by this service: release.yaml, each image's size and SHA-256"),
        service: `running (pid ${process.pid}): this bundle is its answer`,
        // The code it holds, whatever its file says now (removed, or another written over it while it runs).
        secrets: [...operator.secrets, { name: "install code", value: deps.installCode }],
        unreadSecrets: operator.unreadSecrets,
      });
    },
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
