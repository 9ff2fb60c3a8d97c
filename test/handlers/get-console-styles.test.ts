import { CONSOLE_CSS } from "../../build/console-assets.ts";
import definition from "../../handlers/get-console-styles.ts";
import { testConsoleAsset } from "../helpers/console-asset.ts";

testConsoleAsset({ route: definition, path: "/console.css", what: "stylesheet", body: CONSOLE_CSS, type: "text/css" });
