import { bundleConsole } from "./console.ts";

/** Run from source, this builds the console on import; build.ts puts the built strings in its place in dist/installer.js. */
export const { CONSOLE_HTML, CONSOLE_JS, CONSOLE_CSS } = bundleConsole();
