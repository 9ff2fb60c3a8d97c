/**
 * A terminal's screen, for tests of what the fleet's live view draws: it runs the view's output through a model of
 * the few things a terminal does with it (printable characters, wide ones two columns; autowrap at the right edge; CR;
 * LF, which scrolls at the bottom; ESC [ n A, cursor up; ESC [ J, clear to the end of the screen) and refuses any
 * other escape sequence. What it gives back is what a person sees at the end and what scrolled off above it.
 */
export interface Screen {
  /** The screen's rows at the end, trailing blanks trimmed. */
  rows: string[];
  /** Rows that scrolled off the top, oldest first. */
  scrolledOff: string[];
  /** Each row that a line filled to the right edge and went on from, wrapped, on the next row. */
  wrapped: string[];
}

/** The columns a character takes, for the text these tests print: CJK ideographs and emoji two, combining marks none. */
export const charColumns = (c: string) => (/[\u4e00-\u9fff\u{1f300}-\u{1faff}]/u.test(c) ? 2 : /\p{M}/u.test(c) ? 0 : 1);

export const columnsOf = (line: string) => [...line].reduce((sum, c) => sum + charColumns(c), 0);

export function runTerminal(output: string, columns: number, height: number): Screen {
  const blank = () => [] as string[];
  const screen: string[][] = Array.from({ length: height }, blank);
  const scrolledOff: string[] = [];
  let row = 0;
  let col = 0;
  const wrapped: string[] = [];
  const lineFeed = () => {
    if (row < height - 1) return void row++;
    scrolledOff.push(screen.shift()!.join(""));
    screen.push(blank());
  };
  const text = (cells: string[]) => cells.join("").trimEnd();
  for (let i = 0; i < output.length; ) {
    const c = String.fromCodePoint(output.codePointAt(i)!);
    if (c === "\x1b") {
      const sequence = /^\x1b\[(\d*)([AJ])/.exec(output.slice(i, i + 12));
      if (!sequence) throw new Error(`an escape sequence this terminal model does not know: ${JSON.stringify(output.slice(i, i + 12))}`);
      if (sequence[2] === "A") row = Math.max(0, row - Number(sequence[1] || 1));
      else {
        screen[row]!.length = Math.min(screen[row]!.length, col);
        for (let r = row + 1; r < height; r++) screen[r] = blank();
      }
      i += sequence[0].length;
      continue;
    }
    i += c.length;
    if (c === "\r") col = 0;
    else if (c === "\n") lineFeed();
    else if (/[\x00-\x1f\x7f-\x9f]/.test(c)) throw new Error(`a control character reached the terminal: ${JSON.stringify(c)}`);
    else {
      const width = charColumns(c);
      if (col + width > columns) {
        wrapped.push(text(screen[row]!));
        col = 0;
        lineFeed();
      }
      const cells = screen[row]!;
      while (cells.length < col) cells.push(" ");
      cells[col] = c;
      // The second column of a wide character holds nothing of its own.
      for (let k = 1; k < width; k++) cells[col + k] = "";
      col += width;
    }
  }
  return { rows: screen.map(text).filter((_, r, all) => all.slice(r).some((line) => line !== "")), scrolledOff, wrapped };
}
