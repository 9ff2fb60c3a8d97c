import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "../..");
export const BUNDLE = join(ROOT, "dist/installer.js");
export const DEMO_HOST_FACTS = join(ROOT, "demo/host-facts.json");
