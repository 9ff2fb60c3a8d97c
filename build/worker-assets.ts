import { bundleHashWorker } from "./worker.ts";

/** Run from source, this bundles the hash worker on import; build.ts puts the built string in its place in dist/installer.js. */
export const HASH_WORKER_JS = bundleHashWorker();
