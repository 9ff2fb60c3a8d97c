/**
 * Splits a byte stream into lines at "\n" (a "\r" before it is dropped), keeping at most `keep`
 * bytes of each line and only counting the rest: memory stays bounded however long a line is,
 * where readline would buffer it whole.
 */
export class LineSplitter {
  #parts: Buffer[] = [];
  #kept = 0;
  #dropped = 0;

  constructor(
    private readonly keep: number,
    private readonly onLine: (line: string, droppedBytes: number) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      if (this.#kept === 0 && this.#dropped === 0 && end - start <= this.keep) {
        // The common case, a whole line in one chunk: decoded in place, no copy.
        const stop = end > start && chunk[end - 1] === 13 ? end - 1 : end;
        this.onLine(chunk.toString("utf8", start, stop), 0);
      } else {
        this.#take(chunk.subarray(start, end));
        this.#emit();
      }
      start = end + 1;
    }
    this.#take(chunk.subarray(start));
  }

  /** Emits the last line when the stream ended without a newline. */
  end(): void {
    if (this.#kept > 0 || this.#dropped > 0) this.#emit();
  }

  #take(piece: Buffer): void {
    const kept = Math.min(piece.length, this.keep - this.#kept);
    // A copy: a slice would pin the whole chunk it came from.
    if (kept > 0) this.#parts.push(Buffer.from(piece.subarray(0, kept)));
    this.#kept += kept;
    this.#dropped += piece.length - kept;
  }

  #emit(): void {
    let line = Buffer.concat(this.#parts, this.#kept);
    if (this.#dropped === 0 && line.at(-1) === 13) line = line.subarray(0, -1);
    const dropped = this.#dropped;
    this.#parts = [];
    this.#kept = 0;
    this.#dropped = 0;
    this.onLine(line.toString("utf8"), dropped);
  }
}
