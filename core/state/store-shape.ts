/**
 * What a store document must be for the service to read it: the fields its start and its requests rely on, each of
 * its kind. A document that parses but is not of this shape (a hand edit, a disk that lied, a tool's output pasted in)
 * is one that does not parse: kept aside, never half read (a start that crashed on it could not be recovered from).
 * Loose: fields it does not name are kept as they are.
 */
import { z } from "zod";

// Kinds, states and step names as strings, not this version's lists: a store a newer installer wrote (a value this one
// does not know) is still read, and an installed node still knows it is installed.
const AttemptShape = z.looseObject({
  attempt: z.number().int().min(1),
  kind: z.string(),
  state: z.string(),
  step: z.string().nullable(),
  startedAt: z.string(),
  steps: z.array(z.looseObject({ step: z.string(), state: z.string() })),
  config: z.looseObject({}),
  firstbootTail: z.array(z.string()),
  readinessHistory: z.array(z.looseObject({})),
  verdict: z.looseObject({ attempt: z.number(), outcome: z.string() }).optional(),
  firstbootGroup: z.looseObject({ pid: z.number().int(), startTime: z.number().nullable() }).optional(),
});

// A draft's two forms (every reader of it takes one or the other).
const DraftShape = z.discriminatedUnion("source", [
  z.looseObject({ source: z.literal("structured"), config: z.record(z.string(), z.unknown()), revision: z.number(), updatedAt: z.string().nullable() }),
  z.looseObject({ source: z.literal("yaml"), yaml: z.string(), revision: z.number(), updatedAt: z.string().nullable() }),
]);

const StoreShape = z.looseObject({
  schemaVersion: z.literal(1),
  draft: DraftShape.optional(),
  attempts: z.array(AttemptShape).optional(),
  lockout: z.looseObject({ addresses: z.record(z.string(), z.looseObject({})).optional(), globalFailures: z.array(z.number()).optional() }).optional(),
  unattended: z.looseObject({}).optional(),
  handoff: z.looseObject({}).optional(),
  cluster: z.looseObject({}).optional(),
});

/** Why `data` is not a store document the service can read (its first problem, by path); undefined when it is one. */
export function storeShapeProblem(data: unknown): string | undefined {
  const result = StoreShape.safeParse(data);
  if (result.success) return undefined;
  const issue = result.error.issues[0]!;
  return `${issue.path.length > 0 ? `${issue.path.join(".")}: ` : ""}${issue.message}`;
}
