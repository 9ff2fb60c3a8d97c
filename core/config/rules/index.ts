import { validFloatingRanges } from "./floating-ranges.ts";
import { validHostname } from "./hostname.ts";
import { validJoinAddress } from "./join-address.ts";
import { modeAvailable } from "./mode-available.ts";
import { validNetworkAddress } from "./network-address.ts";
import { validGatewayAndVip } from "./network-gateways.ts";
import { interfaceExists } from "./network-interface.ts";
import { validServers } from "./network-servers.ts";
import { osdDevicesUsable } from "./osd-devices.ts";
import { validPasswordHash } from "./password-hash.ts";
import { requiredFields } from "./required.ts";
import type { Rule } from "./rule.ts";
import { validSshKeys } from "./ssh-keys.ts";
import { validTimezone } from "./timezone.ts";

/** Every rule a draft must pass after its shape check (SPEC §5), roughly in field order. */
export const RULES: readonly Rule[] = [
  requiredFields,
  modeAvailable,
  validHostname,
  validTimezone,
  interfaceExists,
  validNetworkAddress,
  validGatewayAndVip,
  validServers,
  validFloatingRanges,
  osdDevicesUsable,
  validJoinAddress,
  validSshKeys,
  validPasswordHash,
];
