import { BASE_JS } from "./script/base.ts";
import { BOOT_JS } from "./script/boot.ts";
import { EVENTS_JS } from "./script/events.ts";
import { FIELD_ERRORS_JS } from "./script/field-errors.ts";
import { FORM_JS } from "./script/form.ts";
import { INSTALL_VIEW_JS } from "./script/install-view.ts";
import { SIGN_IN_JS } from "./script/sign-in.ts";
import { STATUS_JS } from "./script/status.ts";
import { YAML_TAB_JS } from "./script/yaml-tab.ts";

/** The console's script: plain browser JavaScript in string modules, so the one-file bundle needs no extra loader. */
export const CONSOLE_JS = `"use strict";
(() => {${[BASE_JS, SIGN_IN_JS, BOOT_JS, STATUS_JS, FORM_JS, FIELD_ERRORS_JS, YAML_TAB_JS, INSTALL_VIEW_JS, EVENTS_JS].join("")}
init();
})();
`;
