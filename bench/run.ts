import { benchStartup } from "./startup.ts";

const fmt = (n: number) => n.toFixed(n < 10 ? 2 : 1);

async function main() {
  const startup = await benchStartup(Number(process.env.BENCH_RUNS ?? 10));
  console.log(`cold start (spawn → first 200, median): installer ${fmt(startup.coldStartMs.installer)} ms, bare Hono HTTPS ${fmt(startup.coldStartMs.baseline)} ms, ratio ${startup.coldStartMs.ratio.toFixed(2)}×`);
  console.log(`idle RSS (median):                      installer ${fmt(startup.idleRssMb.installer)} MB, bare Hono HTTPS ${fmt(startup.idleRssMb.baseline)} MB, ratio ${startup.idleRssMb.ratio.toFixed(2)}×`);
  console.log(`bundle size (minified):                 installer ${fmt(startup.bundleKb.installer)} KB, bare Hono ${fmt(startup.bundleKb.baseline)} KB`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
