import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { test } from "node:test";
import { certificateFacts } from "../../core/access/tls.ts";
import { loadTls } from "../../core/access/tls-files.ts";
import getTls from "../../handlers/get-tls.ts";
import { inProcessApp } from "../helpers/app.ts";
import { assertRouteProblem } from "../helpers/route-problem.ts";
import { assertAnswers } from "../helpers/route-schema.ts";

const { route } = getTls;

test("GET /tls: 200 without a code (or with a wrong one), the served certificate's fingerprint and expiry (the certificate serve makes in the state dir)", async (t) => {
  const installer = await inProcessApp(t);
  const { cert, fingerprint } = await loadTls(installer.stateDir, {});
  installer.services.tls = () => certificateFacts(cert);
  const served = { sha256: fingerprint, notAfter: new Date(new X509Certificate(cert).validTo).toISOString() };
  assert.deepEqual(assertAnswers(route, 200, await installer.request("/tls", { code: null })), served);
  assert.deepEqual(assertAnswers(route, 200, await installer.request("/tls", { code: "AAAA-BBBB-CCCC" })), served);
});

test("GET /tls: 404 NOT_FOUND from an app built in process without TLS", async (t) => {
  const installer = await inProcessApp(t);
  assertRouteProblem(route, await installer.request("/tls", { code: null }), 404, "NOT_FOUND", { detail: "This app serves no certificate of its own: it was built in process, without TLS." });
});

test("GET /tls: 500 INTERNAL when the service fails", async (t) => {
  const installer = await inProcessApp(t);
  installer.services.tls = () => {
    throw new Error("boom");
  };
  assertRouteProblem(route, await installer.request("/tls", { code: null }), 500, "INTERNAL");
});
