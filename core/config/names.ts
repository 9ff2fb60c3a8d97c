import { MODE_TABLE, MODES, NODE_YAML_MODES } from "../model.ts";
import { formatPath, toSnake } from "./paths.ts";
import type { Names, Path } from "./types.ts";

export const draftNames: Names = {
  field: formatPath,
  mode: (mode) => mode,
  modes: MODES,
  objectWord: "an object",
};

export function toNodeYamlPath(path: Path): Path {
  return path.map((segment) => (typeof segment === "string" ? toSnake(segment) : segment));
}

export const nodeYamlNames: Names = {
  field: (path) => formatPath(toNodeYamlPath(path)),
  mode: (mode) => MODE_TABLE[mode].nodeYamlMode,
  modes: NODE_YAML_MODES,
  objectWord: "a mapping",
};
