/**
 * At most `max` characters, then a marker saying how much was cut. Never ends in half a surrogate
 * pair (a broken character). For texts shown to a person: pushes, tool output for the model.
 */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  let head = text.slice(0, max);
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  return `${head}\n…[cut: ${text.length - head.length} more characters]`;
}
