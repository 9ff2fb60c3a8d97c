import { readFile } from "node:fs/promises";
import { isAbsolute, join, normalize } from "node:path";
import { LineCounter, parseDocument } from "yaml";
import { z } from "zod";
import { PROFILES } from "../common/model.ts";
import type { ReleaseModel } from "./release-model.ts";

export const RELEASE_FILE = "release.yaml";
const MAX_RELEASE_BYTES = 1024 * 1024;

const ProfileSchema = z.strictObject({ enabled: z.boolean(), preview: z.boolean().optional() });

const ImageSchema = z.strictObject({
  file: z
    .string()
    .min(1)
    .refine((file) => !isAbsolute(file) && !normalize(file).startsWith(".."), "must be a path inside the payload folder"),
  size: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex digits"),
});

const ReleaseFileSchema = z.strictObject({
  release: z.union([z.string().min(1), z.number()]).transform(String),
  profiles: z.partialRecord(z.enum(PROFILES), ProfileSchema),
  images: z.array(ImageSchema),
});

type ReleaseImage = z.infer<typeof ImageSchema>;

export interface ReleaseFile {
  model: ReleaseModel;
  images: ReleaseImage[];
}

/** release.yaml, checked like node.yaml: unknown keys refused, every problem named with its place. */
function parseReleaseFile(text: string): { ok: true; release: ReleaseFile } | { ok: false; problem: string } {
  if (Buffer.byteLength(text) > MAX_RELEASE_BYTES) return { ok: false, problem: "it is larger than 1 MiB" };
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, logLevel: "error" });
  const syntax = doc.errors[0];
  if (syntax) {
    const { line, col } = lineCounter.linePos(syntax.pos[0]);
    return { ok: false, problem: `line ${line}, column ${col}: ${syntax.message.split("\n")[0]}` };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 50 });
  } catch (err) {
    return { ok: false, problem: (err as Error).message };
  }
  const parsed = ReleaseFileSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const path = issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("").replace(/^\./, "");
      const keys = issue.code === "unrecognized_keys" ? ` (${issue.keys.join(", ")})` : "";
      return `${path || "(top level)"}: ${issue.message}${keys}`;
    });
    return { ok: false, problem: problems.join("; ") };
  }
  const { release, profiles, images } = parsed.data;
  return { ok: true, release: { model: { release, profiles }, images } };
}

type ReleaseRead = { kind: "ready"; release: ReleaseFile } | { kind: "missing" } | { kind: "unreadable" | "invalid"; problem: string };

/** The folder's release.yaml, read and checked. */
export async function readReleaseFile(folder: string): Promise<ReleaseRead> {
  let text: string;
  try {
    text = await readFile(join(folder, RELEASE_FILE), "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "ENOENT" ? { kind: "missing" } : { kind: "unreadable", problem: code ?? (err as Error).message };
  }
  const parsed = parseReleaseFile(text);
  return parsed.ok ? { kind: "ready", release: parsed.release } : { kind: "invalid", problem: parsed.problem };
}
