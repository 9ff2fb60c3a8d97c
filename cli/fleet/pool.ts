/**
 * How many nodes the fleet asks at once when it asks every node (connecting, their drafts' validation, the report):
 * enough for a rack's round trips to overlap, few enough that the driver's sockets and memory do not grow with the rack.
 */
export const NODES_AT_ONCE = 32;

/** Runs `work` over `items`, at most `limit` at once, in order of the list. */
export async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** `work` over `items`, NODES_AT_ONCE at a time: its results in the order of the list. */
export async function eachNode<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  await pool(
    items.map((item, i) => [item, i] as const),
    NODES_AT_ONCE,
    async ([item, i]) => void (results[i] = await work(item)),
  );
  return results;
}
