import { RequestError, getRequestListener, type Http2Bindings, type HttpBindings } from "@hono/node-server";
import { createServer, type Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { networkInterfaces } from "node:os";
import { resolve } from "node:path";
import { loadHostFactsFile, readHostFacts } from "../core/host/read-facts.ts";
import type { Logger } from "../core/common/log.ts";
import type { Settings } from "../core/common/settings.ts";
import { acquireStateLock } from "../core/fs/state-lock.ts";
import { GRACE_MS } from "../core/process/group.ts";
import { startStorageProblem } from "../core/fs/storage-error.ts";
import { certificateFacts, type CertificateFacts } from "../core/access/tls.ts";
import { loadTls } from "../core/access/tls-files.ts";
import { rawProblem, unroutedProblem } from "../handlers/problem.ts";
import { printable } from "../core/common/printable.ts";
import { stderrIsJournal } from "./journal.ts";
import { CONNECTION_LIMITS, capConnections, connectionCap, lowLimitNotice, openFilesLimit, openFilesNow } from "./connections.ts";
import { lingerOnClose } from "./linger.ts";
import { connectionsOf, stopTakingRequests } from "./answers.ts";
import { warmUpWhenQuiet } from "./warm-up.ts";
import { whenQuiet } from "./when-quiet.ts";
import { wireServices } from "./wire.ts";
import { removeInterruptedWrites } from "../core/state/store.ts";
import { ensurePrivateDir } from "../core/fs/private-dir.ts";
import type { LastStart } from "../core/state/records.ts";
import { writeLastStart } from "../core/state/last-start.ts";
import { stateLayout } from "../core/state/layout.ts";
import type { CodeCache } from "./fast-start.ts";
import { STOPS } from "./stops.ts";

function publicUrl(host: string, port: number): string {
  const wildcard = host === "0.0.0.0" || host === "::";
  const address = wildcard
    ? (Object.values(networkInterfaces())
        .flat()
        .find((i) => i && !i.internal && i.family === "IPv4")?.address ?? "127.0.0.1")
    : host;
  return `https://${address.includes(":") ? `[${address}]` : address}:${port}`;
}

/** A second without a new request after the first, or 30 s after it at the latest. */
const CACHE_SAVE = { quietMs: 1_000, latestMs: 30_000 };

/**
 * Once the first burst of requests is over: the cache then holds the code of those requests' paths too (a console's
 * first page, a fleet's checks), and its writing waits for none of them.
 */
function saveWhenQuiet(server: HttpsServer, codeCache: CodeCache, log: Logger): void {
  whenQuiet(server, "request", CACHE_SAVE, () => void codeCache.save().catch((err: Error) => log.warn("code cache not written", { error: err.message })));
}

/**
 * The notices of this start, for a support bundle made later: written before the banner shows (synchronously: a
 * stop asked for the moment it shows must not lose them), in place by a rename.
 */
function keepNotices(stateDir: string, lastStart: LastStart, log: Logger): void {
  try {
    writeLastStart(stateDir, lastStart);
  } catch (err) {
    log.warn("the notices of this start were not kept", { error: (err as Error).message });
  }
}

/**
 * The banner. A notice may carry text from outside the installer (the name a process firstboot left running gave
 * itself): written printable, never as a terminal would obey it.
 */
export function banner(b: { version: string; url: string; address: string; port: number; installCode: string; tls: { fingerprint: string; source: string }; stateDir: string; notices: readonly string[] }): string {
  return [
    `Stratum installer ${b.version}`,
    `  URL:          ${b.url}  (listening on ${b.address}:${b.port})`,
    `  Install code: ${b.installCode}`,
    `  TLS SHA-256:  ${b.tls.fingerprint} (${b.tls.source})`,
    `  State dir:    ${printable(b.stateDir)}`,
    ...b.notices.map((n) => `  NOTICE: ${printable(n)}`),
    "",
  ].join("\n");
}

/**
 * One sentence for a listen that failed: what is wrong with the listen address and what to do, in the words the
 * operator gave it in (STRATUM_LISTEN from installer.env or `npm start`'s environment, where no flag can be typed).
 */
function listenProblem(err: NodeJS.ErrnoException, host: string, port: number, from: Settings["listenFrom"]): string {
  const shown = host.includes(":") ? `[${host}]` : host;
  const at = `${shown}:${port}`;
  const setting = from === "environment" ? "STRATUM_LISTEN" : "--listen";
  const set = (value: string) => (from === "environment" ? `STRATUM_LISTEN=${value} (from the environment; under systemd /etc/stratum/installer.env)` : `--listen ${value}`);
  switch (err.code) {
    case "EADDRINUSE":
      return `cannot listen on ${at}: another program uses that port (EADDRINUSE); stop it, or choose another port with ${set(`${shown}:PORT`)}`;
    case "EADDRNOTAVAIL":
    case "ENOTFOUND":
    case "EAI_AGAIN": {
      // A name that does not resolve (a typo) is refused as an address that is not this machine's is.
      const own = Object.values(networkInterfaces()).flat().flatMap((i) => (i ? [i.address] : []));
      const why = err.code === "EADDRNOTAVAIL" ? "is not an address of this machine" : "does not resolve to an address here";
      return `cannot listen on ${at}: ${host} ${why} (${err.code}); ${setting} on one of ${own.join(", ")}, or 0.0.0.0 for all`;
    }
    case "EACCES":
      return `cannot listen on ${at}: port ${port} is below 1024 and needs root (EACCES); run the installer as root, or choose a port of 1024 or above with ${setting}`;
    default:
      return `cannot listen on ${at}: ${err.message}`;
  }
}

/**
 * `modulesLoadedAt`: when serve's modules had been loaded (`performance.now()`). The `listening` log line gives when
 * each part of the start ended, so a slow boot can be read from the service log.
 */
/** `warnings`: what the command line's reading found (a STRATUM_ variable no flag reads), among this start's notices. */
export async function runServe(settings: Settings, version: string, codeCache: CodeCache | undefined, modulesLoadedAt: number, warnings: readonly string[] = []): Promise<void> {
  // A state dir that refuses writes (full, read-only) stops the start with what to do, not a bare ENOSPC.
  const storage = (err: unknown): never => {
    const problem = startStorageProblem(settings.stateDir, err);
    throw problem ? new Error(problem) : err;
  };
  // Its chmod to 0700 is its first write: on a read-only file system, said as the writes after it are.
  const stateDir = await ensurePrivateDir(settings.stateDir, "the state dir", "another --state-dir").catch(storage);
  const lock = await acquireStateLock(stateDir).catch(storage);
  let url = publicUrl(settings.listenHost, settings.listenPort);
  let certificate: CertificateFacts | undefined;
  let tlsKey: string | undefined;
  const now = () => new Date();
  const refused = async (err: unknown): Promise<never> => {
    await lock.release();
    return storage(err);
  };
  // Before any write of this start: a temp file of its own, listed while it is written, would be taken for one.
  const cleanedTempFiles = await removeInterruptedWrites(stateDir).catch(refused);
  // Side by side once the lock is held: on a first start each writes (and fsyncs) its own new files.
  const [{ services, opened, installCode, codeNotice, log }, tls] = await Promise.all([
    (settings.hostFacts ? loadHostFactsFile(settings.hostFacts) : readHostFacts()).then((host) =>
      wireServices(settings, { version, url: () => url, tls: () => certificate, tlsKey: () => tlsKey, host, now, journal: stderrIsJournal(process.env), cleanedTempFiles }),
    ),
    loadTls(settings.stateDir, { cert: settings.tlsCert, key: settings.tlsKey }),
  ]).catch(refused);
  // A promise nobody awaited must not end a service that holds a node's install: log it loudly.
  process.on("unhandledRejection", (reason) => log.error("unhandled rejection", { error: reason instanceof Error ? reason.message : String(reason) }));
  certificate = certificateFacts(tls.cert);
  tlsKey = tls.key;
  // A start whose first writes fit and a later one does not (a first start's store record of its handoff) is a start
  // on a full state dir too: the same sentence, and the lock released, not left for the next start to take over.
  const started = await services.start().catch(async (err: unknown) => {
    await services.stop();
    await lock.release();
    return storage(err);
  });
  const stateReadyAt = performance.now();

  // The API (its routes' modules, schemas and middleware) is built once the banner shows: a request needs it, the
  // listen does not, and the build overlaps the client's reading the banner, connecting and shaking hands (with a
  // code cache it is done before the first request comes). A request that comes sooner waits for it.
  type App = ReturnType<typeof import("../handlers/app.ts").createApp>;
  let app: App | undefined;
  let building: Promise<App> | undefined;
  const build = () =>
    (building ??= import("../handlers/app.ts")
      .then(({ createApp }) => (app = createApp(services)))
      .catch((err: unknown) => {
        log.error("the API could not be built", { error: err instanceof Error ? err.message : String(err) });
        throw err;
      }));
  /** Set once a stop is asked for: nothing new (the warm-up) starts after it. */
  let stopping = false;
  const fetch: App["fetch"] = (request, env) => (app ? app.fetch(request, env) : build().then((built) => built.fetch(request, env)));

  const openFiles = openFilesLimit();
  const maxConnections = connectionCap(openFiles, openFilesNow());
  // Not serve(): it takes no errorHandler, and without one @hono/node-server answers a request it makes no URL of
  // (target *, a broken Host) with an empty 400, and an API that could not be built with an empty 500.
  const answerUnrouted = (err: unknown) =>
    err instanceof RequestError ? unroutedProblem(400, `The request is not valid HTTP: ${err.message}.`) : unroutedProblem(500, "The installer failed to answer; its log says why.");
  // HTTP/1.1 names its Host (RFC 9112 §3.2); Node 20 would refuse one that does not with an empty 400 of its own.
  const hosted = (request: Request, env: HttpBindings | Http2Bindings) =>
    env.incoming.headers.host === undefined && env.incoming.httpVersion === "1.1" ? unroutedProblem(400, "The request is not valid HTTP: an HTTP/1.1 request has a Host header.") : fetch(request, env);
  const server = createServer(
    { cert: tls.cert, key: tls.key, handshakeTimeout: CONNECTION_LIMITS.handshakeTimeoutMs, requireHostHeader: false },
    getRequestListener(hosted, { hostname: settings.listenHost, errorHandler: answerUnrouted }),
  );
  server.listen(settings.listenPort, settings.listenHost, () => {
    const info = server.address() as AddressInfo;
    const listeningAt = performance.now();
    url = publicUrl(settings.listenHost, info.port);
    const notices = [
      ...warnings,
      lock.tookOverFrom ? `took over the lock of a stopped installer (pid ${lock.tookOverFrom})` : undefined,
      opened.keptAside ? `the store file did not parse (${opened.keptAsideWhy}): kept aside as ${opened.keptAside}; started with a fresh store` : undefined,
      codeNotice,
      lowLimitNotice(openFiles, maxConnections),
      tls.notice,
      ...started,
      opened.cleanedTempFiles.length > 0 ? `removed ${opened.cleanedTempFiles.length} temp file(s) of an interrupted write` : undefined,
    ].filter((n): n is string => n !== undefined);
    const ranWith = { payload: resolve(settings.payload), ...(settings.hostFacts ? { hostFacts: resolve(settings.hostFacts) } : {}), ...(settings.tlsKey ? { tlsKey: resolve(settings.tlsKey) } : {}), listenHost: settings.listenHost, port: info.port };
    keepNotices(settings.stateDir, { startedAt: now().toISOString(), pid: process.pid, version, notices, ...ranWith }, log);
    process.stdout.write(banner({ version, url, address: info.address, port: info.port, installCode, tls, stateDir: settings.stateDir, notices }));
    for (const notice of notices) log.warn(notice);
    void build().catch(() => undefined);
    warmUpWhenQuiet(server, { app: build, log, stopping: () => stopping, code: installCode });
    const ms = (at: number) => Math.round(at * 10) / 10;
    const startMs = { compiled: codeCache && ms(codeCache.compiledAt), modulesLoaded: ms(modulesLoadedAt), stateReady: ms(stateReadyAt), listening: ms(listeningAt) };
    log.info("listening", { url, port: info.port, maxConnections, codeCache: codeCache?.state, codeCacheFrom: codeCache?.from, startMs });
    if (codeCache?.unreadable) log.warn("code cache not read", { error: codeCache.unreadable });
    if (codeCache?.outdatedImage) {
      const bundle = codeCache.outdatedImage.replace(/\.code-cache$/, "");
      log.warn("the image's code cache is outdated", { hint: `${codeCache.outdatedImage} is not this start's (made for another installer.js, Node or flags, or damaged): each start compiles without it; run \`${process.execPath} ${bundle} prepare-image\` again, with the flags and NODE_OPTIONS the service runs with` });
    }
  });
  capConnections(server, log, maxConnections);
  if (codeCache) saveWhenQuiet(server as HttpsServer, codeCache, log);
  lingerOnClose(server as HttpsServer);
  const connections = connectionsOf(server as HttpsServer);
  server.on("clientError", (err: NodeJS.ErrnoException, socket: import("node:stream").Duplex) => {
    // Not HTTP's (a TLS handshake that timed out or failed): nothing can be answered on it. Ended instead of destroyed,
    // a connection that never shook hands stayed open for good.
    if (!socket.writable || !err.code?.startsWith("HPE_")) return socket.destroy();
    const tooLarge = err.code === "HPE_HEADER_OVERFLOW";
    socket.end(rawProblem(tooLarge ? 431 : 400, tooLarge ? "The request headers are over 16 KB." : "The request is not valid HTTP."));
  });

  let signals = 0;
  const stop = (signal: "SIGTERM" | "SIGINT") => {
    // A second Ctrl-C or SIGTERM waits for the first's stop (the firstboot group stopped, at most its grace, then
    // KILL), saying so: Node's default action would leave that group running and the lock held. A third is obeyed.
    if (stopping) {
      signals += 1;
      if (signals >= 2) {
        process.stderr.write(`installer: ${signal} again: exiting now; a firstboot still running is left running, unsupervised\n`);
        process.exit(STOPS[signal]);
      }
      process.stderr.write(`installer: stopping: a running firstboot's group is stopped first (at most ${GRACE_MS / 1000} s, then killed); send ${signal} once more to exit at once, leaving it running\n`);
      return log.info("already stopping", { signal });
    }
    stopping = true;
    const stopAt = performance.now();
    log.info("stopping", { signal });
    // No new connection, the idle ones closed, the busy ones once their answer went out: a request still answered
    // meanwhile starts no install (INSTALLER_STOPPING).
    const answered = stopTakingRequests(server as HttpsServer, connections);
    // The last line says the stop completed (not a kill mid-stop): how long it took, what stopping firstboot took.
    const stopped = async () => {
      const { attempt, firstboot } = await services.stop();
      // The event streams the stop ended (saying so) and the answers under way go out whole, the lock still held: after
      // its release no request of this process is answered and it writes nothing in the state dir.
      const cut = await answered();
      log.info("stopped", {
        signal,
        ms: Math.round(performance.now() - stopAt),
        ...(attempt === undefined ? {} : { attempt }),
        ...(firstboot ? { firstbootStopped: firstboot.processes, firstbootKilled: firstboot.killedAfterMs !== undefined } : {}),
        ...(firstboot?.survived ? { firstbootSurvived: firstboot.survived } : {}),
        ...(cut > 0 ? { answersCut: cut } : {}),
      });
      await lock.release();
    };
    void stopped()
      .catch((err: unknown) => log.error("the stop failed", { error: err instanceof Error ? err.message : String(err) }))
      .finally(() => process.exit(0));
  };
  // Before the banner can be seen: a stop asked for the moment it shows is a clean stop, never the default kill.
  const onTerm = () => stop("SIGTERM");
  const onInt = () => stop("SIGINT");
  process.on("SIGTERM", onTerm);
  process.on("SIGINT", onInt);
  // The terminal or SSH session it ran in went away (Node's default for SIGHUP: exit at once, leaving a running
  // firstboot unsupervised and its verdict unwritten). A dropped connection must not cut an install short: it serves
  // on, as under nohup, and says how to stop it.
  let hungUp = false;
  const onHup = () => {
    if (hungUp) return;
    hungUp = true;
    log.warn("the terminal hung up (SIGHUP): serving on without it", { hint: `stop it with \`kill -TERM ${process.pid}\`; its log goes on in ${stateLayout(settings.stateDir).serviceLog}` });
  };
  process.on("SIGHUP", onHup);

  try {
    await new Promise<void>((resolve, reject) => {
      server.once("listening", resolve);
      server.once("error", reject);
    });
  } catch (err) {
    process.off("SIGTERM", onTerm);
    process.off("SIGINT", onInt);
    process.off("SIGHUP", onHup);
    await services.stop();
    await lock.release();
    throw new Error(listenProblem(err as NodeJS.ErrnoException, settings.listenHost, settings.listenPort, settings.listenFrom));
  }
  server.on("error", (err) => log.error("server error", { error: err.message }));
}
