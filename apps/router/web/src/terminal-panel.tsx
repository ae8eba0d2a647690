import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import { useEffect, useRef, useState } from "preact/hooks";
import type { TerminalHub, TerminalSink } from "./terminal-hub.ts";

// One terminal: xterm.js on the page, a PTY on the host. Output is acknowledged once xterm has
// written it (its write callback), so the host sends no faster than this screen takes it.

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
  const screen = useRef<HTMLDivElement>(null);
  const [status, setStatus] = useState("starting…");

  useEffect(() => {
    const element = screen.current;
    if (!element) return;
    const term = new Terminal({ fontSize: 13, scrollback: 2000, cursorBlink: true });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(element);
    fit.fit();
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
    const typing = term.onData((data) => {
      if (id && running) hub.input(id, data);
    });
    const resizing = term.onResize(() => sendSize());
    const observer = new ResizeObserver(() => fit.fit());
    observer.observe(element);
    return () => {
      observer.disconnect();
      typing.dispose();
      resizing.dispose();
      hub.close(entry.ref, id);
      term.dispose();
    };
  }, [entry.ref, entry.node, entry.attach, hub]);

  return (
    <section class="terminal" aria-label={`Terminal on ${entry.node}`}>
      <header>
        <strong>Terminal · {entry.node}</strong>
        <span class="terminal-status">{status}</span>
        <button type="button" onClick={props.onClose}>
          Close terminal
        </button>
      </header>
      <div class="terminal-screen" ref={screen} />
    </section>
  );
}
