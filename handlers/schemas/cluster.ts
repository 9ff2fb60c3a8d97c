import { z } from "@hono/zod-openapi";
import { JOIN_CHECK_NAMES, JOIN_CODES } from "../../core/state/records.ts";

export const JoinCheckSchema = z
  .object({
    name: z.enum(JOIN_CHECK_NAMES).meta({ description: "reachable (TLS within 5 s), fingerprint (the certificate is the token's), join-info, cluster, release, clock (skew ≤ 30 s), token (HMAC proof accepted); in the order they run." }),
    ok: z.boolean(),
    code: z.enum(JOIN_CODES).optional().meta({ description: "Set on a check that ran and failed. A check an earlier failure left nothing to ask is ok: false without a code." }),
    detail: z.string().meta({ description: "What was found and, on a failure, what to fix." }),
  })
  .meta({ id: "JoinCheck" });

export const JoinCheckResultSchema = z
  .object({ ok: z.boolean().meta({ description: "Every check passed: the node can join." }), checks: z.array(JoinCheckSchema) })
  .meta({ id: "JoinCheckResult" });

export const JoinTokenSchema = z
  .object({
    token: z.string().meta({ description: "STRATUM1:<SHA-256 of the cloud API certificate>:<secret>: the joining nodes' cluster.joinToken. A secret: share it as you would a password." }),
    joinAddress: z.string().meta({ description: "The joining nodes' cluster.joinAddress: the cluster's vip (port 8443)." }),
    cluster: z.string().meta({ description: "The cluster's name." }),
    release: z.string().nullable().meta({ description: "The release the cluster runs; joining nodes need the same payload release." }),
  })
  .meta({ id: "JoinToken" });
