// A small check that text is well-formed XML (what a plist must be): one root element, every tag
// closed in order, no stray `<` or `&` in text or attribute values, comments without `--`. Not a
// validator; enough to catch an escaping mistake in a generated plist.

const NAME = "[A-Za-z_][A-Za-z0-9._:-]*";
const ATTRIBUTES = `(?:\\s+${NAME}\\s*=\\s*(?:"[^"<&]*"|'[^'<&]*'))*`;
const ENTITY = /&(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);/g;

export function wellFormedXmlProblem(text: string): string | undefined {
  let rest = text.replace(/^<\?xml[^?]*\?>/, "");
  const stack: string[] = [];
  let roots = 0;
  while (rest.length > 0) {
    const lt = rest.indexOf("<");
    const chars = lt < 0 ? rest : rest.slice(0, lt);
    if (chars.replace(ENTITY, "").includes("&")) return `a bare & in ${JSON.stringify(chars)}`;
    if (stack.length === 0 && chars.trim() !== "") return `text outside the root: ${JSON.stringify(chars)}`;
    if (lt < 0) break;
    rest = rest.slice(lt);
    if (rest.startsWith("<!--")) {
      const end = rest.indexOf("-->");
      if (end < 0 || rest.slice(4, end).includes("--")) return "a bad comment";
      rest = rest.slice(end + 3);
      continue;
    }
    if (rest.startsWith("<!DOCTYPE")) {
      if (roots > 0 || stack.length > 0) return "a DOCTYPE after the root";
      rest = rest.slice(rest.indexOf(">") + 1);
      continue;
    }
    const tag = new RegExp(`^<(/?)(${NAME})(${ATTRIBUTES})\\s*(/?)>`).exec(rest);
    if (!tag) return `a bad tag at ${JSON.stringify(rest.slice(0, 40))}`;
    const [whole, closing, name, , selfClosing] = tag as unknown as [string, string, string, string, string];
    rest = rest.slice(whole.length);
    if (closing) {
      if (stack.pop() !== name) return `</${name}> closes nothing open`;
      continue;
    }
    if (stack.length === 0 && ++roots > 1) return "more than one root element";
    if (!selfClosing) stack.push(name);
  }
  if (stack.length > 0) return `<${stack.at(-1)}> is never closed`;
  return roots === 1 ? undefined : "no root element";
}
