import { quoted } from "../messages.ts";
import { hostnameProblem } from "../net.ts";
import type { Rule } from "./rule.ts";

export const validHostname: Rule = (draft) => {
  if (draft.hostname === undefined) return [];
  const problem = hostnameProblem(draft.hostname);
  return problem ? [{ path: ["hostname"], message: `hostname ${quoted(draft.hostname)} is not a valid RFC 1123 hostname: ${problem}` }] : [];
};
