// Splits a long reply's Markdown into pieces on paragraph or code-block boundaries, so no code
// block is ever cut in half (a block longer than a piece is split on line boundaries and each part
// re-fenced). The "[1/3]" headers and the platform's dialect are render-for-platform.ts's.

interface Fence {
  /** The opening line as written (indent, marker, info string). */
  open: string;
  /** The closing line, or the bare marker when the block ran to the end of the text unclosed. */
  close: string;
  /** The bare marker (``` or ~~~, as long as written). */
  marker: string;
}

interface Block {
  text: string;
  fence?: Fence;
}

// A backtick fence's info string may not contain a backtick (CommonMark): "```js```" is inline code.
const FENCE_OPEN = /^(\s*)(`{3,}|~{3,})(.*)$/;
const isFenceOpen = (line: string) => {
  const match = FENCE_OPEN.exec(line);
  if (!match) return undefined;
  const marker = match[2] ?? "```";
  return marker.startsWith("`") && (match[3] ?? "").includes("`") ? undefined : marker;
};
/** A closing fence: the same character, at least as long as the opening, and nothing after it. */
const closes = (line: string, marker: string) => {
  const match = /^\s*(`{3,}|~{3,})\s*$/.exec(line);
  return !!match?.[1] && match[1][0] === marker[0] && match[1].length >= marker.length;
};

function toBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split("\n");
  let paragraph: string[] = [];
  const flushParagraph = () => {
    if (paragraph.length > 0) blocks.push({ text: paragraph.join("\n") });
    paragraph = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const marker = isFenceOpen(line);
    if (marker) {
      flushParagraph();
      const body = [line];
      let j = i + 1;
      while (j < lines.length && !closes(lines[j] ?? "", marker)) body.push(lines[j++] ?? "");
      const closed = j < lines.length;
      if (closed) body.push(lines[j] ?? "");
      const close = closed ? (lines[j] ?? marker).trimStart() : marker;
      blocks.push({ text: body.join("\n"), fence: { open: line, close, marker } });
      i = j;
    } else if (line.trim() === "") {
      flushParagraph();
    } else {
      paragraph.push(line);
    }
  }
  flushParagraph();
  return blocks;
}

/** Where to cut `text` to at most `max` code units: not inside a surrogate pair, at a space if one is near. */
function cutPoint(text: string, max: number): number {
  if (text.length <= max) return text.length;
  let cut = max;
  const space = text.lastIndexOf(" ", max - 1);
  if (space >= max / 2) cut = space + 1;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff && cut > 1) cut -= 1;
  return cut;
}

/** Cuts one line into pieces of at most `room` code units. */
function cutLine(line: string, room: number): string[] {
  if (line.length <= room) return [line];
  const pieces: string[] = [];
  let rest = line;
  while (rest.length > room) {
    const cut = cutPoint(rest, room);
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  pieces.push(rest);
  return pieces;
}

/** Splits an oversized block: a code block into re-fenced parts, a paragraph by lines. */
function splitBlock(block: Block, limit: number): string[] {
  const lines = block.text.split("\n");
  const fence = block.fence;
  const room = (open: string, close: string) => limit - (open.length + close.length + 2);
  const body = lines.slice(1);
  if (fence && body.length > 0 && closes(body.at(-1) ?? "", fence.marker)) body.pop();
  // Fences must leave each part at least half its room for code; below that (or with no code to
  // keep together), plain lines.
  if (!fence || body.length === 0 || room(fence.marker, fence.marker) <= limit / 2) {
    return packLines(lines, limit);
  }
  if (room(fence.open, fence.close) > limit / 2) return packLines(body, limit, fence);
  // An absurd info string is shortened to fit in every part: only its first word (the language) counts.
  const open = cutLine(fence.open, Math.floor(limit / 4))[0] ?? fence.marker;
  return packLines(body, limit, { open, close: fence.marker, marker: fence.marker });
}

/** Packs lines (cut where longer than a part) into parts of at most `limit`, each fenced if asked. */
function packLines(lines: string[], limit: number, fence?: Fence): string[] {
  const room = limit - (fence ? fence.open.length + fence.close.length + 2 : 0);
  const parts: string[] = [];
  let current: string[] = [];
  let size = 0;
  const flush = () => {
    if (current.length === 0) return;
    parts.push(fence ? [fence.open, ...current, fence.close].join("\n") : current.join("\n"));
    current = [];
    size = 0;
  };
  for (const line of lines) {
    for (const piece of cutLine(line, room)) {
      if (size + piece.length + 1 > room + 1) flush();
      current.push(piece);
      size += piece.length + 1;
    }
  }
  flush();
  return parts;
}

/**
 * Splits markdown into pieces of at most `room` UTF-16 code units, without headers: on paragraph
 * and code-block boundaries, a long code block re-fenced per piece, a long line cut (at a space
 * where one is near, never inside a surrogate pair).
 */
export function splitMarkdown(text: string, room: number): string[] {
  // Below two units a surrogate pair cannot be kept whole.
  if (room < 2) throw new RangeError(`cannot split markdown into pieces of ${room} characters`);
  if (text.length <= room) return [text];
  const pieces: string[] = [];
  let current = "";
  for (const block of toBlocks(text)) {
    const parts = block.text.length > room ? splitBlock(block, room) : [block.text];
    for (const part of parts) {
      if (current && current.length + part.length + 2 > room) {
        pieces.push(current);
        current = "";
      }
      current = current ? `${current}\n\n${part}` : part;
    }
  }
  if (current) pieces.push(current);
  return pieces;
}
