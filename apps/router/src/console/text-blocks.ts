// A console message's text cut into prose and preformatted blocks: a fenced block (``` or ~~~,
// as CommonMark writes it) is command output or a screen, shown in monospace as written; an
// unclosed fence runs to the end (a part of a split message, or output cut short). The page never
// renders the text as HTML: this only says which parts are preformatted.

export interface TextBlock {
  kind: "text" | "code";
  text: string;
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})\s*$/;

/** The fence a line opens, if it opens one (a backtick fence's info string has no backtick). */
function opens(line: string): string | undefined {
  const match = FENCE_OPEN.exec(line);
  const marker = match?.[1];
  if (!marker) return undefined;
  return marker.startsWith("`") && (match[2] ?? "").includes("`") ? undefined : marker;
}

const closes = (line: string, marker: string) => {
  const found = FENCE_CLOSE.exec(line)?.[1];
  return found !== undefined && found[0] === marker[0] && found.length >= marker.length;
};

export function textBlocks(text: string): TextBlock[] {
  const blocks: TextBlock[] = [];
  let prose: string[] = [];
  const flushProse = () => {
    const joined = prose.join("\n");
    if (joined.trim() !== "") blocks.push({ kind: "text", text: joined });
    prose = [];
  };
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const marker = opens(line);
    if (!marker) {
      prose.push(line);
      continue;
    }
    flushProse();
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !closes(lines[j] ?? "", marker)) body.push(lines[j++] ?? "");
    blocks.push({ kind: "code", text: body.join("\n") });
    i = j;
  }
  flushProse();
  return blocks;
}
