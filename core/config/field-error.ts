import { formatPath } from "./paths.ts";
import type { FieldError, PathError } from "./schema.ts";

export function toFieldError({ path, message, hint }: PathError, position?: { line: number; column: number }): FieldError {
  return { field: formatPath(path), message, ...(hint !== undefined && { hint }), ...position };
}
