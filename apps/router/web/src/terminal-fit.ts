import type { FitAddon } from "@xterm/addon-fit";
import type { Terminal } from "@xterm/xterm";
import type { RefObject } from "preact";
import { useEffect, useState } from "preact/hooks";

// How big the terminal is drawn on a phone: its font size (A− / A+, remembered in this browser) and
// its screen's height while the on-screen keyboard covers part of the page.

const FONT_KEY = "phonework.terminal.fontSize";
export const FONT_DEFAULT = 13;
const FONT_MIN = 8;
const FONT_MAX = 28;
/** The screen keeps at least this many pixels, however little the keyboard leaves. */
const SCREEN_MIN_PX = 96;

export function clampFontSize(size: number): number {
  return Math.min(FONT_MAX, Math.max(FONT_MIN, Math.round(size)));
}

export function storedFontSize(): number {
  try {
    const stored = Number(localStorage.getItem(FONT_KEY));
    return stored ? clampFontSize(stored) : FONT_DEFAULT;
  } catch {
    return FONT_DEFAULT; // storage refused (a private window): the default
  }
}

export function storeFontSize(size: number): void {
  try {
    localStorage.setItem(FONT_KEY, String(size));
  } catch {
    // not remembered, still applied
  }
}

/** The font size, and a step to change it by: the terminal is refitted, and the PTY follows its new size. */
export function useFontSize(terminal: RefObject<{ term: Terminal; fit: FitAddon } | undefined>) {
  const [fontSize, setFontSize] = useState(storedFontSize);
  useEffect(() => {
    const current = terminal.current;
    if (!current || current.term.options.fontSize === fontSize) return;
    current.term.options.fontSize = fontSize;
    current.fit.fit();
  }, [fontSize, terminal]);
  return (step: number) => {
    const size = clampFontSize(fontSize + step);
    storeFontSize(size);
    setFontSize(size);
  };
}

/**
 * While the visual viewport is shorter than the window (the on-screen keyboard is open), the
 * screen is shortened so the panel (its header, screen and key bar) fits in what is visible, and
 * brought into view; when it closes, the stylesheet's height is back. The screen's own size change
 * refits xterm (the panel's ResizeObserver), and with it the PTY.
 */
export function followVisualViewport(panel: HTMLElement, screen: HTMLElement): () => void {
  const viewport = window.visualViewport;
  if (!viewport) return () => {};
  const fit = () => {
    screen.style.height = "";
    const keyboardOpen = viewport.height < window.innerHeight * 0.85;
    if (!keyboardOpen) return;
    const natural = screen.getBoundingClientRect().height;
    const rest = panel.getBoundingClientRect().height - natural;
    const available = Math.floor(viewport.height - rest - 8);
    if (available < natural) screen.style.height = `${Math.max(SCREEN_MIN_PX, available)}px`;
    panel.scrollIntoView({ block: "end" });
  };
  viewport.addEventListener("resize", fit);
  return () => viewport.removeEventListener("resize", fit);
}
