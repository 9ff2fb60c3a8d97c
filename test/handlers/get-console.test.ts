import { CONSOLE_HTML } from "../../build/console-assets.ts";
import definition from "../../handlers/get-console.ts";
import { testConsoleAsset } from "../helpers/console-asset.ts";

testConsoleAsset({ route: definition, path: "/", what: "page", body: CONSOLE_HTML, type: "text/html" });
