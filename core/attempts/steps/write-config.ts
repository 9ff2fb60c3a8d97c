import { writeFileAtomic } from "../../fs/atomic-write.ts";
import { NotWrittenError, writeRemedy } from "../../fs/storage-error.ts";
import { withJoinToken } from "../../cluster/service.ts";
import type { AttemptRecord } from "../../state/records.ts";
import { StepFailure } from "../verdict.ts";
import type { StepContext } from "./context.ts";

interface WriteConfig {
  /** Where node.yaml goes (--node-yaml). */
  path: string;
  /** The node.yaml the draft renders to. */
  text: string;
  /** An ha-init node's generated cluster secret, for node.yaml's cluster.join_token (SPEC §6). */
  foundingSecret: () => Promise<string | undefined>;
  record: Pick<AttemptRecord, "nodeYamlPath">;
}

/** The draft becomes node.yaml, private (0600) and whole or not at all. */
export async function writeConfig(ctx: StepContext, { path, text: rendered, foundingSecret, record }: WriteConfig): Promise<void> {
  const secret = await foundingSecret();
  const text = secret === undefined ? rendered : withJoinToken(rendered, secret);
  if (secret !== undefined) ctx.emit({ type: "step.progress", level: "info", message: "generated the cluster's join secret (cluster.join_token); joins get the token from GET /v1/installer/cluster/join-token once installed" });
  try {
    await writeFileAtomic(path, text);
  } catch (err) {
    // node.yaml by its own name (Node's message names the temp file an open failed on), why, and what to do.
    throw new StepFailure("WRITE_FAILED", `${new NotWrittenError(path, err).message}: ${writeRemedy(err)}, then retry the install.`);
  }
  record.nodeYamlPath = path;
  ctx.emit({ type: "step.progress", level: "info", message: `wrote ${path} (${Buffer.byteLength(text)} bytes, mode 0600)` });
}
