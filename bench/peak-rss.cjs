// Preloaded into the fleet process by bench/fleet-10.ts (NODE_OPTIONS=--require): its peak RSS, said at exit.
process.on("exit", () => process.stderr.write(`peak RSS: ${process.resourceUsage().maxRSS} KiB\n`));
