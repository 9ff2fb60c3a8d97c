/** The support bundle (SPEC §11): one .tar.gz of a node's story, read only from the state dir, with no secret in it. */
export { writeSupportBundle, type Manifest, type SupportBundle } from "./bundle.ts";
export { offlineFacts, payloadFacts, serviceFact } from "./facts.ts";
export { readState } from "./state.ts";
export { operatorSecrets } from "./secrets.ts";
export { readBundle, type BundleContents } from "./read.ts";
