import { CONSOLE_JS } from "../build/console-assets.ts";
import { consoleAssetRoute } from "./console-asset-route.ts";

export default consoleAssetRoute({
  path: "/console.js",
  operationId: "getConsoleScript",
  summary: "The web console's script.",
  description: "Plain JavaScript with no dependencies; no install code needed.",
  mediaType: "text/javascript",
  what: "The script.",
  body: CONSOLE_JS,
});
