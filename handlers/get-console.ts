import { CONSOLE_HTML } from "../build/console-assets.ts";
import { consoleAssetRoute } from "./console-asset-route.ts";

export default consoleAssetRoute({
  path: "/",
  operationId: "getConsole",
  summary: "The web console.",
  description:
    "The installer's web front end, embedded in the installer: this page with /console.js and /console.css. No install code is needed to load it; it asks for the code and then calls the public /v1/installer API with it.",
  mediaType: "text/html",
  what: "The console's page.",
  body: CONSOLE_HTML,
});
