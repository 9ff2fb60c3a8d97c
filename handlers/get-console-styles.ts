import { CONSOLE_CSS } from "../build/console-assets.ts";
import { consoleAssetRoute } from "./console-asset-route.ts";

export default consoleAssetRoute({
  path: "/console.css",
  operationId: "getConsoleStyles",
  summary: "The web console's stylesheet.",
  description: "No install code needed.",
  mediaType: "text/css",
  what: "The stylesheet.",
  body: CONSOLE_CSS,
});
