import assert from "node:assert/strict";
import { test } from "node:test";
import { banner } from "../../cli/serve.ts";

test("the banner writes a notice's outside text printable: a process name that clears the screen and retitles the terminal is shown, not obeyed", () => {
  const text = banner({
    version: "0.1.0",
    url: "https://127.0.0.1:9443",
    address: "127.0.0.1",
    port: 9443,
    installCode: "ABCD-EFGH-JKMN",
    tls: { fingerprint: "AA:BB", source: "generated" },
    stateDir: "/var/lib/stratum/installer",
    notices: ["stopped 1 process the interrupted firstboot of attempt 1 left running: 3770 \u001b[2J\u001b]0;PWN\u0007\u202e"],
  });
  assert.equal(
    text,
    [
      "Stratum installer 0.1.0",
      "  URL:          https://127.0.0.1:9443  (listening on 127.0.0.1:9443)",
      "  Install code: ABCD-EFGH-JKMN",
      "  TLS SHA-256:  AA:BB (generated)",
      "  State dir:    /var/lib/stratum/installer",
      "  NOTICE: stopped 1 process the interrupted firstboot of attempt 1 left running: 3770 \\x1b[2J\\x1b]0;PWN\\x07\\u202e",
      "",
    ].join("\n"),
  );
});
