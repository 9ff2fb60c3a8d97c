import { CONSOLE_JS } from "../../build/console-assets.ts";
import definition from "../../handlers/get-console-script.ts";
import { testConsoleAsset } from "../helpers/console-asset.ts";

testConsoleAsset({ route: definition, path: "/console.js", what: "script", body: CONSOLE_JS, type: "text/javascript" });
