import { writeFileAtomic } from "../../fs/atomic-write.ts";
import type { AttemptRecord } from "../../records.ts";
import { StepFailure } from "../verdict.ts";
import type { StepContext } from "./context.ts";

export interface WriteConfig {
  /** Where node.yaml goes (--node-yaml). */
  path: string;
  /** The node.yaml the draft renders to. */
  text: string;
  record: Pick<AttemptRecord, "nodeYamlPath">;
}

/** The draft becomes node.yaml, private (0600) and whole or not at all. */
export async function writeConfig(ctx: StepContext, { path, text, record }: WriteConfig): Promise<void> {
  try {
    await writeFileAtomic(path, text);
  } catch (err) {
    throw new StepFailure("WRITE_FAILED", `could not write ${path}: ${(err as Error).message}`);
  }
  record.nodeYamlPath = path;
  ctx.emit({ type: "step.progress", level: "info", message: `wrote ${path} (${Buffer.byteLength(text)} bytes, mode 0600)` });
}
