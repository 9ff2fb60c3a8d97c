import assert from "node:assert/strict";
import { test } from "node:test";
import { isNodeSupported, OLDEST_NODE } from "../../cli/node-version.ts";

test(`the oldest Node.js the installer runs on is ${OLDEST_NODE}: older ones are told so`, () => {
  for (const version of ["18.17.0", "v18.17.0", "18.17.1", "18.20.4", "19.0.0", "20.0.0", "26.12.1"]) assert.equal(isNodeSupported(version), true, version);
  for (const version of ["18.16.1", "v18.16.9", "17.9.1", "16.20.2", "12.22.12", "0.10.48"]) assert.equal(isNodeSupported(version), false, version);
});
