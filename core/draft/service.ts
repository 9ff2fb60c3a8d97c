import { createHash } from "node:crypto";
import { MAX_CONFIG_DEPTH, nodeYamlWithStableDisks, renderNodeYaml, withStableDisks, type ValidationContext } from "../config/index.ts";
import { refusal } from "../attempts/admission.ts";
import { InstallerError } from "../common/errors.ts";
import type { Logger, Origin } from "../common/log.ts";
import type { AttemptRecord, DraftRecord, FieldError } from "../state/records.ts";
import { redactedNodeYaml } from "../secrets/index.ts";
import type { Slice } from "../state/store.ts";
import { analyzeBody, toBody, type DraftAnalysis, type DraftBody } from "./analysis.ts";
import { jsonDepth } from "./json-depth.ts";
import { erasedDisks, type InstallReview } from "./review.ts";

interface DraftView {
  source: "structured" | "yaml";
  config?: Record<string, unknown>;
  yaml?: string;
  valid: boolean;
  errors: FieldError[];
  updatedAt: string | null;
  etag: string;
}

function etagOf(record: DraftRecord): string {
  const content = record.source === "yaml" ? record.yaml : JSON.stringify(record.config);
  return `"${createHash("sha256").update(record.source).update("\0").update(content).digest("base64url").slice(0, 22)}"`;
}

/** RFC 7396 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return patch;
  const base: Record<string, unknown> =
    typeof target === "object" && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete base[key];
    else base[key] = mergePatch(base[key], value);
  }
  return base;
}

export interface DraftService {
  record(): DraftRecord;
  analysis(): DraftAnalysis;
  view(): DraftView;
  replace(body: DraftBody, ifMatch: string | undefined, origin?: Origin): Promise<DraftView>;
  patch(patch: Record<string, unknown>, ifMatch: string | undefined, origin?: Origin): Promise<DraftView>;
  validate(body: DraftBody): DraftAnalysis;
  /** The service's own change (the unattended take-over), written; no person acted. */
  set(body: DraftBody): Promise<void>;
  /** The node.yaml the draft renders to, its disks by stable path; INVALID_CONFIG when it cannot render. */
  nodeYaml(): string;
  /** What an install of the draft writes and erases, for a person to confirm; INVALID_CONFIG when it cannot render. */
  review(): InstallReview;
  /** PRECONDITION_FAILED unless `ifMatch` (an If-Match header) names the draft's current ETag or `*`. */
  requireMatch(ifMatch: string): void;
  /** True while a change is being written: until it settles, memory may hold a draft the disk does not. */
  saving(): boolean;
  /** Resolves once the changes asked for so far are written or rolled back. */
  settled(): Promise<void>;
}

interface DraftServiceDeps {
  draft: Slice<DraftRecord>;
  context: () => ValidationContext;
  now: () => Date;
  /** The attempts so far: while one runs, or once one succeeded, the draft may not change. */
  attempts: () => readonly AttemptRecord[];
  /** A person changed the draft: changes memory only, written with the draft; returns its undo. */
  personActed: () => (() => void) | undefined;
  log: Logger;
}

/** A structured draft (or merge patch) deeper than a node.yaml may be: refused, as the validators judge none that deep. */
function refuseDeep(value: unknown): void {
  if (jsonDepth(value, MAX_CONFIG_DEPTH) > MAX_CONFIG_DEPTH) {
    throw new InstallerError({ code: "INVALID_REQUEST", detail: `The config nests deeper than ${MAX_CONFIG_DEPTH} levels; node.yaml is a few levels deep.` });
  }
}

export function createDraftService({ draft, context, now, attempts, personActed, log }: DraftServiceDeps): DraftService {
  let cache: { record: DraftRecord; ctx: ValidationContext; analysis: DraftAnalysis; etag: string } | undefined;

  const current = () => {
    const record = draft.get();
    const ctx = context();
    if (!cache || cache.record !== record || cache.ctx !== ctx) {
      cache = { record, ctx, analysis: analyzeBody(toBody(record), ctx), etag: etagOf(record) };
    }
    return cache;
  };

  /** The draft on disk already is `body`: writing it changes nothing (its ETag, updatedAt and revision stay). */
  const alreadyIs = (body: DraftBody) => {
    const previous = draft.get();
    return previous.updatedAt !== null && etagOf(previous) === etagOf({ ...body, revision: 0, updatedAt: null } as DraftRecord);
  };

  /**
   * A whole draft (PUT) whose If-Match fails but which already is the draft on the node is answered as done (RFC 9110
   * §13.1.1: the change already happened, its first answer perhaps lost, as a fleet's retry meets it). The ETag it
   * gets names that content (a hash of it), so it vouches for the very draft the client sent, whoever wrote it. Not a
   * patch: it applies to whatever draft is there, one its client may never have seen, so its If-Match is judged first.
   */
  const admitChange = (ifMatch: string | undefined, kind: "replace" | "patch", make: () => DraftBody): DraftBody => {
    const refused = refusal({ action: "change-draft", attempts: attempts() });
    if (refused) throw refused;
    const stale = "GET /v1/installer/config again and reapply your change.";
    if (ifMatch !== undefined && kind === "patch") requireMatch(ifMatch, stale);
    const changed = make();
    if (ifMatch !== undefined && kind === "replace" && !alreadyIs(changed)) requireMatch(ifMatch, stale);
    if (changed.source === "structured") refuseDeep(changed.config);
    return changed;
  };

  const requireMatch = (ifMatch: string, next = "Review it again (GET /v1/installer/config/review) and install with its ETag.") => {
    const etag = current().etag;
    // Compared strongly (RFC 9110 §13.1.1): a weak tag (W/"…") matches nothing, for it does not vouch for the very bytes.
    const named = ifMatch.split(",").map((tag) => tag.trim());
    if (named.includes("*") || named.includes(etag)) return;
    const why = named.every((tag) => tag.startsWith("W/"))
      ? `If-Match ${ifMatch} names a weak ETag, and If-Match compares strongly: send the ETag as given (${etag}).`
      : `The draft changed since you read it (If-Match ${ifMatch}, current ETag ${etag}).`;
    throw new InstallerError({ code: "PRECONDITION_FAILED", detail: `${why} ${next}` });
  };

  /** What changed and whether it validates; never the content, which may hold secrets. */
  const logChange = (change: "replace" | "patch" | "handoff", origin?: Origin) => {
    const { record, analysis } = current();
    log.info("config changed", { ...origin, change, source: record.source, revision: record.revision, valid: analysis.valid, errors: analysis.errors.length });
  };

  /**
   * A draft that fails to be written leaves the previous one in place, in memory as on disk. The same draft again
   * changes nothing of it (its ETag, updatedAt and revision stay), but is still saved: what the change did besides
   * (a person taking over an unattended draft) must reach the disk all the same.
   */
  const write = async (body: DraftBody, undo?: () => void) => {
    const previous = draft.get();
    if (!alreadyIs(body)) {
      const revision = previous.revision + 1;
      const updatedAt = now().toISOString();
      draft.set(body.source === "yaml" ? { source: "yaml", yaml: body.yaml, revision, updatedAt } : { source: "structured", config: body.config, revision, updatedAt });
    }
    try {
      await draft.save();
    } catch (err) {
      draft.set(previous);
      undo?.();
      throw err;
    }
  };

  // One change at a time, each judged and made on the draft the one before left (written or rolled
  // back): a rollback never undoes a later change, and If-Match and merge patches see what is on disk.
  let inFlight = 0;
  let queue: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(change: () => Promise<T>): Promise<T> => {
    inFlight++;
    const done = queue.then(change).finally(() => inFlight--);
    queue = done.catch(() => undefined);
    return done;
  };

  const personChanges = (kind: "replace" | "patch", ifMatch: string | undefined, origin: Origin | undefined, make: () => DraftBody) =>
    inTurn(async () => {
      const body = admitChange(ifMatch, kind, make);
      await write(body, personActed());
      logChange(kind, origin);
      return service.view();
    });

  const service: DraftService = {
    record: () => draft.get(),
    analysis: () => current().analysis,
    view() {
      const { record, analysis, etag } = current();
      return {
        source: record.source,
        ...(record.source === "yaml" ? { yaml: record.yaml } : { config: record.config }),
        valid: analysis.valid,
        errors: analysis.errors,
        updatedAt: record.updatedAt,
        etag,
      };
    },
    requireMatch,
    saving: () => inFlight > 0,
    settled: async () => {
      await queue;
    },
    replace: (body, ifMatch, origin) => personChanges("replace", ifMatch, origin, () => body),
    patch(patch, ifMatch, origin) {
      return personChanges("patch", ifMatch, origin, () => {
        const record = draft.get();
        if (record.source !== "structured") {
          throw new InstallerError({
            code: "INVALID_REQUEST",
            detail: "The draft is raw node.yaml; a merge patch applies to a structured (JSON) draft. PUT the whole node.yaml, or PUT a JSON draft first.",
          });
        }
        refuseDeep(patch);
        return { source: "structured", config: mergePatch(record.config, patch) as Record<string, unknown> };
      });
    },
    validate(body) {
      // Answered as PUT would take it.
      if (body.source === "structured") refuseDeep(body.config);
      return analyzeBody(body, context());
    },
    set: (body) =>
      inTurn(async () => {
        await write(body);
        logChange("handoff");
      }),
    nodeYaml() {
      const { record, analysis, ctx } = current();
      // A raw node.yaml that parses has a structured form even with errors: it renders only once it validates.
      if (!analysis.valid || !analysis.draft) {
        throw new InstallerError({
          code: "INVALID_CONFIG",
          detail: "The draft does not validate, so it renders no node.yaml yet; fix the fields listed in `errors`.",
          errors: analysis.errors,
        });
      }
      return record.source === "yaml" ? nodeYamlWithStableDisks(record.yaml, ctx.host) : renderNodeYaml(withStableDisks(analysis.draft, ctx.host));
    },
    review() {
      const nodeYaml = service.nodeYaml();
      const { analysis, ctx, etag } = current();
      return { nodeYaml: redactedNodeYaml(nodeYaml), erases: erasedDisks(analysis.draft!, ctx.host), etag };
    },
  };
  return service;
}
