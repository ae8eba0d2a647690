import { useEffect, useMemo, useReducer, useState } from "preact/hooks";
import { AdminView } from "./admin-view.tsx";
import { ApprovalsView } from "./approvals-view.tsx";
import { ChatView } from "./chat-view.tsx";
import { ConsoleLink, type LinkState } from "./console-link.ts";
import { initialState, reduce, type StateFrame } from "./console-state.ts";
import { NodesView } from "./nodes-view.tsx";
import { NotificationsView } from "./notifications-view.tsx";
import { itemsOf } from "./overview-items.ts";
import { base64Of } from "./record-button.tsx";
import { ScheduleView } from "./schedule-view.tsx";
import { SessionsView } from "./sessions-view.tsx";
import { type Tab, TabBar } from "./tab-bar.tsx";
import { TasksView } from "./tasks-view.tsx";
import { type TerminalFrame, TerminalHub } from "./terminal-hub.ts";
import { type TerminalEntry, TerminalPanel } from "./terminal-panel.tsx";
import { UsageView } from "./usage-view.tsx";

// The console page: one WebSocket; what waits for the user's answer, their nodes, sessions, tasks,
// plans and schedule (live, as the nodes report them), admin views for admins, their terminals and
// the chat. Two columns on a wide screen; on a phone one view at a time, the chat first, the others
// one tap away in a bottom bar (tab-bar.tsx, console.css).

/** The router's own commands: sent as they are, never to a chosen node. */
const ROUTER_COMMAND = /^\/(nodes|node|help|result|console|pair|revoke|forget|share|unshare|status)\b/i;
const TOAST_MS = 5000;
/** MAX_CONSOLE_VOICE_BASE64 of console-frames.ts (the page takes no values from it, only types). */
const MAX_VOICE_BASE64 = 240_000;

const STATE_TEXT: Record<LinkState, string> = {
  connecting: "connecting…",
  open: "live",
  reconnecting: "reconnecting…",
  "signed-out": "signed out",
};

export function App() {
  const [state, dispatch] = useReducer(reduce, initialState);
  const [link, setLink] = useState<LinkState>("connecting");
  const [terminals, setTerminals] = useState<TerminalEntry[]>([]);
  const [target, setTarget] = useState("");
  const [tab, setTab] = useState<Tab>("chat");
  const { socket, hub } = useConsoleLink(dispatch, setLink, setTerminals);
  useEffect(() => socket.connect(), [socket]);
  useEffect(() => {
    const last = state.toasts.at(-1);
    if (!last) return;
    const timer = setTimeout(() => dispatch({ type: "untoast", id: last.id }), TOAST_MS);
    return () => clearTimeout(timer);
  }, [state.toasts]);

  const toast = (text: string) => dispatch({ type: "toast", text });
  const send = (text: string) => {
    const addressed =
      target && !text.startsWith("@") && !ROUTER_COMMAND.test(text) ? `@${target} ${text}` : text;
    if (!socket.send({ type: "chat", text: addressed })) toast("Not connected to the router: not sent.");
  };
  const sendVoice = async (audio: Blob) => {
    const data = await base64Of(audio);
    if (data.length > MAX_VOICE_BASE64) return toast("Too long to send: record a shorter voice note.");
    if (!socket.send({ type: "voice", mime_type: audio.type || "audio/webm", data_base64: data }))
      toast("Not connected to the router: not sent.");
  };
  const press = (data: string, messageId: string) => {
    if (!socket.send({ type: "press", data, message_id: messageId })) toast("Not connected to the router.");
  };
  /** An overview item's button: its command, as the user's message to that node. */
  const act = (node: string, command: string) => {
    if (!socket.send({ type: "chat", text: `@${node} ${command}` })) toast("Not connected to the router.");
  };
  const openTerminal = (node: string) => {
    setTerminals((open) => [...open, { ref: `${node}-${Date.now()}-${open.length}`, node }]);
    setTab("terminal");
  };
  const chatTo = (node: string) => {
    setTarget(node);
    setTab("chat");
  };
  const closeTerminal = (ref: string) => setTerminals((open) => open.filter((entry) => entry.ref !== ref));

  const items = <K extends Parameters<typeof itemsOf>[2]>(kind: K) =>
    itemsOf(state.nodes, state.overviews, kind);
  const now = Date.now() + state.clockSkewMs;

  if (link === "signed-out")
    return (
      <main class="notice">
        <h1>Signed out</h1>
        <p>Send /console in your PhoneWork chat for a new sign-in link.</p>
      </main>
    );
  const approvals = items("approvals");
  return (
    <div class="console" data-tab={tab}>
      <TopBar link={link} user={state.user} />
      <div class="columns">
        <div class="side">
          <div class="pane pane-work">
            <ApprovalsView approvals={approvals} now={now} act={act} />
          </div>
          <div class="pane pane-nodes">
            <NodesView
              nodes={state.nodes}
              clockSkewMs={state.clockSkewMs}
              openTerminal={openTerminal}
              chatTo={chatTo}
            />
            <NotificationsView nodes={state.nodes} />
          </div>
          <div class="pane pane-work">
            <SessionsView sessions={items("sessions")} now={now} act={act} />
            <TasksView tasks={items("tasks")} plans={items("plans")} now={now} act={act} />
            <ScheduleView jobs={items("schedule")} act={act} />
            <UsageView nodes={state.nodes} overviews={state.overviews} />
          </div>
          {state.admin ? (
            <div class="pane pane-admin">
              <AdminView nodes={state.adminNodes} now={now} command={send} />
            </div>
          ) : null}
        </div>
        <div class="main">
          <div class="pane pane-terminal">
            {terminals.length === 0 ? <NoTerminal showNodes={() => setTab("nodes")} /> : null}
            {terminals.map((entry) => (
              <TerminalPanel
                key={entry.ref}
                entry={entry}
                hub={hub}
                onClose={() => closeTerminal(entry.ref)}
              />
            ))}
          </div>
          <div class="pane pane-chat">
            <ChatView
              messages={state.messages}
              admin={state.admin}
              target={target}
              nodes={state.nodes.map((node) => node.id)}
              setTarget={setTarget}
              send={send}
              sendVoice={(audio) => void sendVoice(audio)}
              fail={toast}
              press={press}
            />
          </div>
        </div>
      </div>
      <TabBar
        tab={tab}
        setTab={setTab}
        admin={state.admin}
        counts={{ work: approvals.length, terminal: terminals.length }}
      />
      <div class="toasts" role="status">
        {state.toasts.map((item) => (
          <div class="toast" key={item.id}>
            {item.text}
          </div>
        ))}
      </div>
    </div>
  );
}

function TopBar(props: { link: LinkState; user: string }) {
  return (
    <header class="top">
      <h1>PhoneWork</h1>
      <span class={`link ${props.link}`}>{STATE_TEXT[props.link]}</span>
      <span class="user">{props.user}</span>
      <form method="post" action="/console/logout">
        <button type="submit">Sign out</button>
      </form>
    </header>
  );
}

/** The Terminal tab on a phone before any is open (hidden on a wide screen: the nodes are beside it). */
function NoTerminal(props: { showNodes: () => void }) {
  return (
    <p class="empty only-phone">
      No terminal open.{" "}
      <button type="button" onClick={props.showNodes}>
        Open one from Nodes
      </button>
    </p>
  );
}

/** The page's one socket: state frames to the reducer, terminal frames to the terminals' hub. */
function useConsoleLink(
  dispatch: (frame: StateFrame) => void,
  setLink: (state: LinkState) => void,
  setTerminals: (update: (open: TerminalEntry[]) => TerminalEntry[]) => void,
) {
  return useMemo(() => {
    let terminalHub: TerminalHub | undefined;
    const consoleLink = new ConsoleLink(
      (frame) => {
        if (frame.type.startsWith("term_")) terminalHub?.receive(frame as TerminalFrame);
        else dispatch(frame as StateFrame);
        // The terminals the router kept for this sign-in: panels waiting take theirs back, a
        // reloaded page gets a panel for each.
        if (frame.type === "hello")
          terminalHub?.resume(frame.terminals, (held) =>
            setTerminals((open) => [...open, { ref: `held-${held.id}`, node: held.node, attach: held.id }]),
          );
      },
      (next) => {
        if (next === "signed-out") terminalHub?.signedOut();
        else if (next !== "open") terminalHub?.disconnected();
        setLink(next);
      },
    );
    terminalHub = new TerminalHub(consoleLink);
    return { socket: consoleLink, hub: terminalHub };
  }, []);
}
