import { interfaceList, shown } from "../messages.ts";
import type { Rule } from "./rule.ts";

// A link that is down is allowed: the cable may be plugged in later, and firstboot brings the interface up.
export const interfaceExists: Rule = (draft, { host, names }) => {
  const name = draft.network?.interface;
  if (name === undefined || host.interfaces.some((i) => i.name === name)) return [];
  const path = ["network", "interface"];
  return [{ path, message: `${names.field(path)} ${shown(name)} is not a network interface on this host`, hint: interfaceList(host) }];
};
