import type { Terminal } from "@xterm/headless";
import xterm from "@xterm/headless";

// A terminal emulator without a display (@xterm/headless), for showing a terminal in chat: output
// goes in, the visible screen comes out as text. Loaded on first use (import it dynamically).

export class HeadlessScreen {
  private readonly term: Terminal;
  private pending = 0;
  /** The screen when it was disposed: an answer being prepared for it still shows that. */
  private last: string | undefined;

  /** `reply` gets what the emulator answers to the program's queries (cursor position, device attributes). */
  constructor(cols: number, rows: number, reply: (data: string) => void) {
    this.term = new xterm.Terminal({ cols, rows, scrollback: 0, allowProposedApi: true });
    this.term.onData(reply);
  }

  /** Parses `data`; `done` is called once it is on the screen (the emulator parses in slices). */
  write(data: string, done: () => void): void {
    this.pending++;
    this.term.write(data, () => {
      this.pending--;
      done();
    });
  }

  /** Nothing written is still waiting to be parsed (once disposed, nothing ever will be). */
  get settled(): boolean {
    return this.pending === 0 || this.last !== undefined;
  }

  /** The visible rows without trailing spaces, and without the blank lines below the last text. */
  text(): string {
    if (this.last !== undefined) return this.last;
    const buffer = this.term.buffer.active;
    const lines: string[] = [];
    for (let y = buffer.viewportY; y < buffer.viewportY + this.term.rows; y++)
      lines.push((buffer.getLine(y)?.translateToString(true) ?? "").trimEnd());
    while (lines.length > 0 && lines.at(-1) === "") lines.pop();
    return lines.join("\n");
  }

  dispose(): void {
    if (this.last !== undefined) return;
    this.last = this.text();
    this.term.dispose();
  }
}
