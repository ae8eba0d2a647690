// A transcript read the way the user meant it: "Slash shell, echo hi." said aloud is `/shell echo hi`.
// Only a leading "slash" (or "/") and the punctuation a transcriber adds around the command word
// and at the end are touched; the words themselves are the user's, exactly as if typed.

const SPOKEN_COMMAND = /^(?:slash\b[\s,.:;-]*|\/\s*)([a-z][\w-]*)[,.:;!?]*(?:\s+([\s\S]*))?$/i;

export function spokenCommand(transcript: string): string {
  const text = transcript.trim();
  const match = SPOKEN_COMMAND.exec(text);
  if (!match) return text;
  const [, name = "", rest = ""] = match;
  const args = rest.trim().replace(/[.!?。！？]+$/u, "");
  return `/${name.toLowerCase()}${args ? ` ${args}` : ""}`;
}
