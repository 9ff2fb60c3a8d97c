import { printableJson } from "../../core/common/printable.ts";

/** What the fleet knows of one node between runs (no secret: the join token is read from the init node again). */
export interface NodeRecord {
  /** The attempt it started or followed last… */
  attempt?: number;
  /** …and the last of its events shown, where following it resumes. */
  lastSeq?: number;
  /** The ETag of the draft the fleet wrote: the next run writes over it with If-Match. */
  etag?: string;
  /** How that attempt ended, once the fleet saw its verdict. */
  outcome?: "succeeded" | "failed";
  /** On disk before the fleet sends POST /install (written with the draft when the node is prepared ahead of its turn),
   * cleared once the attempt it started is recorded, or the run ends without sending it: a run killed between the two
   * leaves it, and the next knows the node's newer attempt is one the fleet started but never showed. */
  starting?: true;
}

/** The journal beside a state file (`plan.fleet-state.json.journal`): the node record changes since the file was written. */
export const journalPathOf = (statePath: string): string => `${statePath}.journal`;

/** Its first line: the plan the run that began it installs. */
export const journalHeader = (planHash: string): string => `${JSON.stringify({ journal: 1, planHash })}\n`;

/** One node's whole record: applying a line twice gives the same state as once. A node's text in it (its ETag) written as JSON a terminal shows, never obeys. */
export const journalLine = (node: string, record: Readonly<NodeRecord>): string => `${printableJson({ node, record })}\n`;

interface Journal {
  /** undefined when not even the first line was written whole. */
  planHash: string | undefined;
  lines: { node: string; record: NodeRecord }[];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const FIELDS: Record<keyof NodeRecord, (value: unknown) => boolean> = {
  attempt: (v) => Number.isSafeInteger(v) && (v as number) >= 0,
  lastSeq: (v) => Number.isSafeInteger(v) && (v as number) >= 0,
  etag: (v) => typeof v === "string",
  outcome: (v) => v === "succeeded" || v === "failed",
  starting: (v) => v === true,
};

/** A node record as a run writes it: each field of its type when present (undefined ones JSON leaves out); others are not the fleet's. */
export function isNodeRecord(value: unknown): value is NodeRecord {
  return isObject(value) && Object.entries(value).every(([key, field]) => Object.hasOwn(FIELDS, key) && FIELDS[key as keyof NodeRecord](field));
}

function parseLine(text: string, first: boolean): { planHash: string } | { node: string; record: NodeRecord } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(value)) return undefined;
  if (first) return value.journal === 1 && typeof value.planHash === "string" ? { planHash: value.planHash } : undefined;
  return typeof value.node === "string" && isNodeRecord(value.record) ? { node: value.node, record: value.record } : undefined;
}

/**
 * A journal's text, line by line. Its last line may be torn (a run killed mid-append) and is then left out; any other
 * line that is not a journal line is an error naming it.
 */
export function parseJournal(text: string): Journal {
  const texts = text.split("\n");
  if (texts.at(-1) === "") texts.pop();
  const journal: Journal = { planHash: undefined, lines: [] };
  for (const [i, line] of texts.entries()) {
    const parsed = parseLine(line, i === 0);
    if (parsed === undefined) {
      if (i === texts.length - 1) break;
      throw new Error(`line ${i + 1} is not a fleet journal line`);
    }
    if ("planHash" in parsed) journal.planHash = parsed.planHash;
    else journal.lines.push(parsed);
  }
  return journal;
}
