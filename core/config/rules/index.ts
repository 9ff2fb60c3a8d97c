import type { Rule } from "../schema.ts";
import { osdDevicesUsable, validClusterName, validJoinAddress, validJoinToken } from "./cluster.ts";
import { validHostname, validPasswordHash, validSshKeys, validTimezone } from "./identity.ts";
import { interfaceExists, validFloatingRanges, validGatewayAndVip, validNetworkAddress, validServers } from "./network.ts";
import { modeAvailable, requiredFields } from "./required.ts";

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
  validClusterName,
  validJoinAddress,
  validJoinToken,
  validSshKeys,
  validPasswordHash,
];
