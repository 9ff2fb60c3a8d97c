import assert from "node:assert/strict";
import { test } from "node:test";
import { statusUrl, UsageError } from "../../cli/flags.ts";

test("status's URL: --url, else --port on 127.0.0.1, else where the installer's last start listened, else 127.0.0.1:9443", () => {
  const rows: Array<[Parameters<typeof statusUrl>[0], Parameters<typeof statusUrl>[1], string]> = [
    [{}, {}, "https://127.0.0.1:9443/"],
    [{}, { listenHost: "0.0.0.0", port: 19443 }, "https://127.0.0.1:19443/"],
    [{}, { listenHost: "::", port: 19443 }, "https://127.0.0.1:19443/"],
    [{}, { listenHost: "10.0.0.5", port: 9443 }, "https://10.0.0.5:9443/"],
    [{}, { listenHost: "fd00::5", port: 9443 }, "https://[fd00::5]:9443/"],
    [{ port: "9555" }, { listenHost: "10.0.0.5", port: 19443 }, "https://127.0.0.1:9555/"],
    [{ url: "https://node-07.lab:9443" }, { listenHost: "10.0.0.5", port: 19443 }, "https://node-07.lab:9443/"],
  ];
  for (const [values, ranWith, url] of rows) assert.equal(statusUrl(values, ranWith).href, url, JSON.stringify([values, ranWith]));
  for (const port of ["0", "65536", "x", ""]) assert.throws(() => statusUrl({ port }), UsageError, port);
});
