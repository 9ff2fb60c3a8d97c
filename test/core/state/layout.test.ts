import assert from "node:assert/strict";
import { test } from "node:test";
import { stateLayout } from "../../../core/state/layout.ts";

// SPEC §2: the state dir's layout is an interface (operators back it up, scripts read the code, the support bundle
// reads it offline): these names are kept; others are added, never renamed.
test("the state dir's names are SPEC §2's: installer.json, install-code, tls.crt, tls.key, installer.lock, events/ (one log an attempt), code-cache, <name>.corrupt-<timestamp>", () => {
  const layout = stateLayout("/s");
  assert.deepEqual(
    { store: layout.store, installCode: layout.installCode, tlsCert: layout.tlsCert, tlsKey: layout.tlsKey, lock: layout.lock, events: layout.events, codeCache: layout.codeCache },
    { store: "/s/installer.json", installCode: "/s/install-code", tlsCert: "/s/tls.crt", tlsKey: "/s/tls.key", lock: "/s/installer.lock", events: "/s/events", codeCache: "/s/code-cache" },
  );
  assert.notEqual(layout.eventsOf(1), layout.eventsOf(2));
  for (const attempt of [1, 2, 10]) assert.ok(layout.eventsOf(attempt).startsWith("/s/events/"), layout.eventsOf(attempt));
  const aside = layout.storeAside(new Date("2026-12-07T20:00:00.000Z"));
  assert.ok(aside.startsWith("/s/installer.json.corrupt-"), aside);
  assert.ok(layout.isStoreAside(aside.slice("/s/".length)));
});
