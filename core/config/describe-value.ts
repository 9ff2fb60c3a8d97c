/** What a value is, in words: "a list", "the number 1234", "null". */
export function describeValue(value: unknown, objectWord: string): string {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "a list";
  if (value instanceof Uint8Array) return "binary data";
  if (typeof value === "object") return objectWord;
  if (typeof value === "number" || typeof value === "bigint") return `the number ${String(value)}`;
  if (typeof value === "boolean") return `${value} (a yes/no value)`;
  return `a ${typeof value}`;
}

/** The same, without the value itself: for secrets, which never appear in a message. */
export function describeKind(value: unknown, objectWord: string): string {
  if (typeof value === "number" || typeof value === "bigint") return "a number";
  if (typeof value === "boolean") return "a yes/no value";
  return describeValue(value, objectWord);
}
