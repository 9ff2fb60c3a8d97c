/**
 * How many nodes the fleet asks at once where it asks every node (the checks before anything changes, the report):
 * the connections it holds open stay bounded whatever the plan's size (a process may open 1,024 files by default).
 */
export const ASK_AT_ONCE = 16;

/** Runs `work` over `items` (each with its index), at most `limit` at once, in order of the list; its results in that order. */
export async function pool<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
