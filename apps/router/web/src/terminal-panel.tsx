import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import { useEffect, useRef, useState } from "preact/hooks";
import { KeyBar } from "./key-bar.tsx";
import { followVisualViewport, storedFontSize, useFontSize } from "./terminal-fit.ts";
import type { TerminalHub, TerminalSink } from "./terminal-hub.ts";
import { type BarKey, keySequence, type Modifiers, withModifiers } from "./terminal-keys.ts";

// One terminal: xterm.js on the page, a PTY on the host. Output is acknowledged once xterm has
// written it (its write callback), so the host sends no faster than this screen takes it. On a
// phone, a key bar sends the keys its keyboard lacks through xterm's own input (the path typing
// takes), and the screen follows the on-screen keyboard and the chosen font size.

export interface TerminalEntry {
  ref: string;
  node: string;
  /** A terminal the router held for this sign-in (after a reload), taken back instead of opened. */
  attach?: string;
}

/** Acknowledged in batches of about this much (or when xterm has caught up). */
const ACK_BATCH_BYTES = 32 * 1024;

export function TerminalPanel(props: { entry: TerminalEntry; hub: TerminalHub; onClose: () => void }) {
  const { entry, hub } = props;
  const panel = useRef<HTMLElement>(null);
  const screen = useRef<HTMLDivElement>(null);
  const terminal = useRef<{ term: Terminal; fit: FitAddon } | undefined>(undefined);
  const [status, setStatus] = useState("starting…");
  const zoom = useFontSize(terminal);
  // Held for the next key: state to draw the bar, a ref for xterm's input handler to read.
  const [held, setHeld] = useState<Modifiers>({ ctrl: false, alt: false });
  const heldNow = useRef(held);
  const hold = (modifiers: Modifiers) => {
    heldNow.current = modifiers;
    setHeld(modifiers);
  };

  useEffect(() => {
    const element = screen.current;
    if (!element || !panel.current) return;
    const term = new Terminal({ fontSize: storedFontSize(), scrollback: 2000, cursorBlink: true });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(element);
    fit.fit();
    terminal.current = { term, fit };
    let id: string | undefined;
    let running = false;
    let writing = 0;
    let credit = 0;
    let sent = { cols: term.cols, rows: term.rows };
    const sendSize = () => {
      if (!id || !running || (sent.cols === term.cols && sent.rows === term.rows)) return;
      sent = { cols: term.cols, rows: term.rows };
      hub.resize(id, term.cols, term.rows);
    };
    const sink: TerminalSink = {
      started(newId) {
        id = newId;
      },
      opened() {
        running = true;
        setStatus("open");
        sendSize();
        term.focus();
      },
      output(data, bytes) {
        writing++;
        term.write(data, () => {
          writing--;
          credit += bytes;
          if (id && (writing === 0 || credit >= ACK_BATCH_BYTES)) {
            hub.ack(id, credit);
            credit = 0;
          }
        });
      },
      ended(text) {
        running = false;
        setStatus(text);
        term.write(`\r\n\x1b[2m[${text}]\x1b[0m\r\n`);
      },
      waiting(text) {
        running = false;
        setStatus(text);
      },
    };
    if (entry.attach) hub.attach(entry.ref, entry.attach, sink);
    else hub.open(entry.ref, entry.node, sent, sink);
    const typing = term.onData((typed) => {
      const modifiers = heldNow.current;
      const data = modifiers.ctrl || modifiers.alt ? withModifiers(typed, modifiers) : typed;
      if (modifiers.ctrl || modifiers.alt) hold({ ctrl: false, alt: false });
      if (id && running) hub.input(id, data);
    });
    const resizing = term.onResize(() => sendSize());
    const observer = new ResizeObserver(() => fit.fit());
    observer.observe(element);
    const unfollow = followVisualViewport(panel.current, element);
    return () => {
      unfollow();
      terminal.current = undefined;
      observer.disconnect();
      typing.dispose();
      resizing.dispose();
      hub.close(entry.ref, id);
      term.dispose();
    };
  }, [entry.ref, entry.node, entry.attach, hub]);

  const pressKey = (key: BarKey) => {
    const term = terminal.current?.term;
    if (!term) return;
    term.input(keySequence(key, term.modes.applicationCursorKeysMode), true);
    term.focus();
  };
  const toggle = (modifier: keyof Modifiers) => {
    hold({ ...heldNow.current, [modifier]: !heldNow.current[modifier] });
    terminal.current?.term.focus();
  };

  return (
    <section class="terminal" aria-label={`Terminal on ${entry.node}`} ref={panel}>
      <header>
        <strong>Terminal · {entry.node}</strong>
        <span class="terminal-status">{status}</span>
        <span class="terminal-font">
          <button type="button" aria-label="A− smaller text" onClick={() => zoom(-1)}>
            A−
          </button>
          <button type="button" aria-label="A+ larger text" onClick={() => zoom(1)}>
            A+
          </button>
        </span>
        <button type="button" onClick={props.onClose}>
          Close terminal
        </button>
      </header>
      <div class="terminal-screen" ref={screen} />
      <KeyBar held={held} onKey={pressKey} onToggle={toggle} />
    </section>
  );
}
