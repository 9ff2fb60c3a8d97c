import type { HostFacts } from "../host.ts";
import type { Mode } from "../model.ts";
import type { ReleaseModel } from "../release.ts";

export interface FieldError {
  field: string;
  message: string;
  hint?: string;
  line?: number;
  column?: number;
}

export interface ValidationContext {
  host: HostFacts;
  release: ReleaseModel;
}

/** A field's place in the draft: keys and list indexes, e.g. ["network", "floatingIpCidrs", 1]. */
export type Path = readonly (string | number)[];

export interface PathError {
  path: Path;
  message: string;
  hint?: string;
  /** The error is about the key itself (an unknown key), not its value. */
  atKey?: boolean;
}

/** How messages name fields and modes: camelCase API names or node.yaml names. */
export interface Names {
  field(path: Path): string;
  mode(mode: Mode): string;
  readonly modes: readonly string[];
  /** "an object" in JSON, "a mapping" in YAML. */
  readonly objectWord: string;
}

export interface RuleContext extends ValidationContext {
  names: Names;
}
