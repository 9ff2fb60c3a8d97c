import { nearest, quoted } from "../messages.ts";
import type { PathError } from "../schema.ts";
import type { Rule } from "./rule.ts";

let zones: Set<string> | undefined;

function ianaZones(): Set<string> {
  zones ??= new Set([...Intl.supportedValuesOf("timeZone"), "UTC"]);
  return zones;
}

// ICU lists some zones by their older names (Asia/Calcutta); the current IANA names (Asia/Kolkata) are valid too.
function isZoneAlias(name: string): boolean {
  if (!/^[A-Za-z]/.test(name)) return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export const validTimezone: Rule = (draft) => {
  const name = draft.timezone;
  if (name === undefined || ianaZones().has(name)) return [];
  const path = ["timezone"];
  const known = [...ianaZones()];
  const sameButCase = known.find((zone) => zone.toLowerCase() === name.toLowerCase());
  if (sameButCase) {
    return [{ path, message: `timezone ${quoted(name)} must be written ${sameButCase}: time zone names are case-sensitive`, hint: `write ${sameButCase}` }];
  }
  if (isZoneAlias(name)) return [];
  const close = nearest(name, known, (zone) => zone);
  const error: PathError = {
    path,
    message: `timezone ${quoted(name)} is not an IANA time zone name`,
    hint: close ? `did you mean ${close}?` : "use a name such as UTC, Europe/Berlin or America/New_York",
  };
  return [error];
};
