/**
 * Text from outside (a firstboot's line, a cloud's answer) kept to a size: its first `maxBytes` of UTF-8, cut at a
 * character boundary and saying how much was cut (`… [cut 23.1 KiB]`), with `droppedBytes` left out before it came.
 */
export function capText(text: string, maxBytes: number, droppedBytes = 0): { text: string; cutBytes: number } {
  if (droppedBytes === 0 && text.length * 3 <= maxBytes) return { text, cutBytes: 0 };
  const bytes = Buffer.from(text);
  if (droppedBytes === 0 && bytes.length <= maxBytes) return { text, cutBytes: 0 };
  let end = Math.min(bytes.length, maxBytes);
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  const cutBytes = bytes.length - end + droppedBytes;
  return { text: `${bytes.subarray(0, end).toString("utf8")} … [cut ${formatBytes(cutBytes)}]`, cutBytes };
}

/** `512 bytes`, `23.1 KiB`, `64.0 MiB`. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  return n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 ** 2).toFixed(1)} MiB`;
}

const MIB = 1024 * 1024;

/** A limit as it is set: `1 MiB`, `64 KiB`. */
export const limitText = (bytes: number): string => (bytes % MIB === 0 ? `${bytes / MIB} MiB` : `${bytes / 1024} KiB`);

/**
 * Why `value` (a peer's answer) is not kept as JSON: it is over `maxBytes` written, or cannot be written at all
 * (nested deeper than a stack goes); undefined when it is kept. `per`: what the limit is of ("a node", "an event").
 */
export function jsonNotKept(value: unknown, maxBytes: number, per: string): string | undefined {
  try {
    const bytes = Buffer.byteLength(JSON.stringify(value));
    return bytes > maxBytes ? `it is ${formatBytes(bytes)}, over the ${limitText(maxBytes)} kept ${per}` : undefined;
  } catch (error) {
    return `it cannot be written as JSON (${(error as Error).message})`;
  }
}
