import { useEffect, useRef, useState } from "preact/hooks";
import type { ConsoleMessage } from "../../src/console/console-frames.ts";
import { ChatMessage } from "./chat-message.tsx";
import { RecordButton } from "./record-button.tsx";

// The console chat: the same conversation as the chat app (answers, progress, buttons, files),
// a box to write in, and shortcuts for the lists the node keeps (tasks, plans, reminders), whose
// answers come back here with their buttons.

export interface ChatViewProps {
  messages: ConsoleMessage[];
  admin: boolean;
  /** The node messages go to ("" for the router's choice, as in the chat app). */
  target: string;
  nodes: string[];
  setTarget: (node: string) => void;
  send: (text: string) => void;
  /** A recorded voice note (the record button). */
  sendVoice: (audio: Blob) => void;
  fail: (text: string) => void;
  press: (data: string, messageId: string) => void;
}

const SHORTCUTS = ["/tasks", "/plans", "/reminders", "/nodes", "/help"];

export function ChatView(props: ChatViewProps) {
  const [draft, setDraft] = useState("");
  const list = useRef<HTMLOListElement>(null);
  const count = props.messages.length;
  useEffect(() => {
    if (count > 0) list.current?.lastElementChild?.scrollIntoView({ block: "end" });
  }, [count]);
  const submit = (event: Event) => {
    event.preventDefault();
    const text = draft.trim();
    if (!text) return;
    props.send(text);
    setDraft("");
  };
  return (
    <section class="panel chat" aria-label="Chat">
      <h2>Chat</h2>
      <ol class="messages" ref={list}>
        {props.messages.map((message) => (
          <ChatMessage key={message.id} message={message} press={props.press} />
        ))}
      </ol>
      <div class="shortcuts">
        {[...SHORTCUTS, ...(props.admin ? ["/status"] : [])].map((command) => (
          <button type="button" key={command} onClick={() => props.send(command)}>
            {command}
          </button>
        ))}
      </div>
      <form class="composer" onSubmit={submit}>
        <select
          aria-label="Send to"
          value={props.target}
          onChange={(event) => props.setTarget((event.target as HTMLSelectElement).value)}
        >
          <option value="">active node</option>
          {props.nodes.map((node) => (
            <option key={node} value={node}>
              @{node}
            </option>
          ))}
        </select>
        <textarea
          aria-label="Message"
          rows={2}
          value={draft}
          placeholder="Message your node…"
          onInput={(event) => setDraft((event.target as HTMLTextAreaElement).value)}
          onKeyDown={(event) => {
            if (event.key === "Enter" && !event.shiftKey) submit(event);
          }}
        />
        <RecordButton send={props.sendVoice} fail={props.fail} />
        <button type="submit">Send</button>
      </form>
    </section>
  );
}
