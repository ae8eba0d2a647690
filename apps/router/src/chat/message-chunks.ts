// Splits a long reply into chat-sized messages on paragraph or code-block boundaries, with
// "[1/3]" headers, so no code block is ever cut in half (a block longer than one message is
// split on line boundaries and each part re-fenced).

interface Block {
  text: string;
  fence?: string;
}

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
    const open = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(line);
    if (open) {
      flushParagraph();
      const fence = open[2] ?? "```";
      const body = [line];
      let j = i + 1;
      while (j < lines.length && !(lines[j] ?? "").trimStart().startsWith(fence)) body.push(lines[j++] ?? "");
      if (j < lines.length) body.push(lines[j] ?? "");
      blocks.push({ text: body.join("\n"), fence: line });
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

/** Splits an oversized block: a code block into re-fenced parts, a paragraph by lines. */
function splitBlock(block: Block, limit: number): string[] {
  const lines = block.text.split("\n");
  const opening = block.fence ? (lines.shift() ?? "```") : "";
  const closing = block.fence ? (lines.pop() ?? "```").trimStart() : "";
  const room = limit - (block.fence ? opening.length + closing.length + 2 : 0);
  const parts: string[] = [];
  let current: string[] = [];
  let size = 0;
  const flush = () => {
    if (current.length === 0) return;
    parts.push(block.fence ? [opening, ...current, closing].join("\n") : current.join("\n"));
    current = [];
    size = 0;
  };
  for (const raw of lines) {
    for (let start = 0; start < Math.max(raw.length, 1); start += room) {
      const piece = raw.slice(start, start + room);
      if (size + piece.length + 1 > room) flush();
      current.push(piece);
      size += piece.length + 1;
    }
  }
  flush();
  return parts;
}

export function splitForChat(text: string, limit = 4000): string[] {
  if (text.length <= limit) return [text];
  const headerRoom = 12; // "[12/34]\n"
  const room = limit - headerRoom;
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
  return pieces.map((piece, index) => `[${index + 1}/${pieces.length}]\n${piece}`);
}
