import type { BarKey, Modifiers } from "./terminal-keys.ts";

// The keys a phone's keyboard lacks, in a bar under the terminal: Esc, Tab, Ctrl and Alt (held for
// the next key), Ctrl-C and Ctrl-D in one tap, the arrows, Home/End and PgUp/PgDn. A tap keeps the
// focus in the terminal (the phone's keyboard stays open).

const KEYS: { key: BarKey; label: string; name: string }[] = [
  { key: "ctrlC", label: "^C", name: "Control C" },
  { key: "ctrlD", label: "^D", name: "Control D" },
  { key: "left", label: "←", name: "Left arrow" },
  { key: "up", label: "↑", name: "Up arrow" },
  { key: "down", label: "↓", name: "Down arrow" },
  { key: "right", label: "→", name: "Right arrow" },
  { key: "home", label: "Home", name: "Home" },
  { key: "end", label: "End", name: "End" },
  { key: "pageUp", label: "PgUp", name: "PgUp, page up" },
  { key: "pageDown", label: "PgDn", name: "PgDn, page down" },
];

const MODIFIERS: { modifier: keyof Modifiers; label: string }[] = [
  { modifier: "ctrl", label: "Ctrl" },
  { modifier: "alt", label: "Alt" },
];

/** A mouse-down on a bar key would move the focus out of the terminal and close the phone's keyboard. */
const keepFocus = (event: Event) => event.preventDefault();

export function KeyBar(props: {
  held: Modifiers;
  onKey: (key: BarKey) => void;
  onToggle: (modifier: keyof Modifiers) => void;
}) {
  const { held, onKey, onToggle } = props;
  return (
    <div class="key-bar" role="toolbar" aria-label="Terminal keys">
      <button type="button" aria-label="Esc, escape" onMouseDown={keepFocus} onClick={() => onKey("escape")}>
        Esc
      </button>
      <button type="button" aria-label="Tab" onMouseDown={keepFocus} onClick={() => onKey("tab")}>
        Tab
      </button>
      {MODIFIERS.map(({ modifier, label }) => (
        <button
          key={modifier}
          type="button"
          aria-label={`${label}, for the next key`}
          aria-pressed={held[modifier]}
          onMouseDown={keepFocus}
          onClick={() => onToggle(modifier)}
        >
          {label}
        </button>
      ))}
      {KEYS.map(({ key, label, name }) => (
        <button key={key} type="button" aria-label={name} onMouseDown={keepFocus} onClick={() => onKey(key)}>
          {label}
        </button>
      ))}
    </div>
  );
}
