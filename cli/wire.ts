import type { CertificateFacts } from "../core/access/tls.ts";
import type { HostFacts } from "../core/host/facts.ts";
import { loadOrCreateInstallCode } from "../core/access/install-code.ts";
import { createLogger, type Logger } from "../core/common/log.ts";
import { createLogRing } from "../core/common/log-ring.ts";
import { clusterSecrets, createRedactor, draftSecrets, keySpellings } from "../core/secrets/index.ts";
import { createServices, type Services } from "../core/service/services.ts";
import { ensurePrivateDir, ensurePrivateDirInside } from "../core/fs/private-dir.ts";
import type { Settings } from "../core/common/settings.ts";
import { stateLayout } from "../core/state/layout.ts";
import { openStore, removeInterruptedWrites, type OpenedStore, type Store } from "../core/state/store.ts";

interface Wired {
  services: Services;
  opened: OpenedStore;
  installCode: string;
  /** The code was made anew over an empty file: said in the banner. */
  codeNotice?: string;
  log: Logger;
  now: () => Date;
}

/** The service's deps, built once from the settings: the one wiring `serve` and the in-process tests share. */
export async function wireServices(
  settings: Settings,
  options: {
    version: string;
    url: () => string;
    tls?: () => CertificateFacts | undefined;
    /** The private key the service serves with (the state dir's tls.key or the operator's --tls-key), once loaded: never in any output. */
    tlsKey?: () => string | undefined;
    host: HostFacts;
    now?: () => Date;
    writeLog?: (line: string) => void;
    journal?: boolean;
    /** What removeInterruptedWrites removed, for a caller that ran it before its own writes (serve makes the TLS pair alongside). */
    cleanedTempFiles?: string[];
    /** Tests only: wraps the store to hold back or fail a slice's writes. */
    store?: (store: Store) => Store;
  },
): Promise<Wired> {
  const now = options.now ?? (() => new Date());
  // The store and the code side by side, in a state dir that exists and holds no temp file of an interrupted write any
  // more (the code's own is not one): on a first start each writes and fsyncs a new file.
  await ensurePrivateDir(settings.stateDir);
  // Before anything reads them (the start reads the events of an attempt a killed installer left): never through a link.
  for (const { path, what, holds } of stateLayout(settings.stateDir).folders) await ensurePrivateDirInside(path, what, holds);
  const cleaned = options.cleanedTempFiles ?? (await removeInterruptedWrites(settings.stateDir));
  const [opened, { code: installCode, notice: codeNotice }] = await Promise.all([openStore(settings.stateDir, now, { cleaned }), loadOrCreateInstallCode(settings.stateDir)]);
  if (options.store) opened.store = options.store(opened.store);
  const draft = opened.store.slice("draft");
  const cluster = opened.store.slice("cluster");
  let keyOf: { key: string; spellings: string[] } | undefined;
  const tlsKey = (): string[] => {
    const key = options.tlsKey?.();
    if (!key) return [];
    if (keyOf?.key !== key) keyOf = { key, spellings: keySpellings(key) };
    return keyOf.spellings;
  };
  const redactor = createRedactor(() => [installCode, ...tlsKey(), ...draftSecrets(draft.get()), ...clusterSecrets(cluster.get())]);
  const layout = stateLayout(settings.stateDir);
  // Lines the state dir's log drops are said, once, on stderr (the journal), and so is their end, in the log too.
  const keep = createLogRing(layout.serviceLog, layout.serviceLogOlder, (problem) =>
    problem === undefined ? log.info("the service log keeps lines again", { file: layout.serviceLog, hint: "the lines between its trouble and the line above went to stderr (the journal) alone" }) : log.warn("the service log drops lines", { problem }),
  );
  const log = createLogger(redactor, now, { write: options.writeLog, journal: options.journal, keep });
  const services = createServices({ version: options.version, url: options.url, tls: options.tls, settings, store: opened.store, installCode, host: options.host, log, redactor, now, recordsLost: opened.keptAside !== undefined });
  return { services, opened, installCode, codeNotice, log, now };
}
