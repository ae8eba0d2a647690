import { useEffect, useState } from "preact/hooks";
import type { ConsoleNode } from "../../src/console/console-frames.ts";
import { SERVICE_WORKER_URL } from "./service-worker-registration.ts";

// Opting in to notifications on this device: off, for all nodes, or for chosen ones. On subscribes
// the service worker with the router's VAPID key and hands the subscription to the router (kept for
// this sign-in); off unsubscribes and tells the router. What the router pushes: a task or plan
// finished, an approval waiting (answerable from the notification), a reminder, a node offline —
// never while a console page is on screen.

type Mode = "off" | "all" | "chosen";
type Status = "loading" | "unsupported" | "blocked" | "ready" | "busy";

const KEY_PATH = "/console/push/key";
const SUBSCRIPTION_PATH = "/console/push/subscription";

interface KeyAnswer {
  publicKey: string;
  subscriptions: { endpoint: string; nodes: string[] | null }[];
}

const supported = () => "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;

async function registration(): Promise<ServiceWorkerRegistration> {
  return (await navigator.serviceWorker.getRegistration(SERVICE_WORKER_URL)) ?? navigator.serviceWorker.ready;
}

function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = base64url.replace(/-/g, "+").replace(/_/g, "/");
  const raw = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  const bytes = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

async function routerKey(): Promise<KeyAnswer> {
  const response = await fetch(KEY_PATH, { credentials: "same-origin", cache: "no-store" });
  if (!response.ok) throw new Error(`the router answered ${response.status}`);
  return (await response.json()) as KeyAnswer;
}

async function send(method: "POST" | "DELETE", body: unknown): Promise<void> {
  const response = await fetch(SUBSCRIPTION_PATH, {
    method,
    credentials: "same-origin",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`the router answered ${response.status}`);
}

/** This device's state as the router keeps it. */
async function currentState(): Promise<{ mode: Mode; nodes: string[] }> {
  const [key, existing] = await Promise.all([
    routerKey(),
    registration().then((reg) => reg.pushManager.getSubscription()),
  ]);
  const kept = existing && key.subscriptions.find((row) => row.endpoint === existing.endpoint);
  if (!kept) return { mode: "off", nodes: [] };
  return kept.nodes ? { mode: "chosen", nodes: kept.nodes } : { mode: "all", nodes: [] };
}

async function apply(mode: Mode, nodes: string[]): Promise<"ok" | "blocked"> {
  const reg = await registration();
  const existing = await reg.pushManager.getSubscription();
  if (mode === "off") {
    if (existing) {
      await send("DELETE", { endpoint: existing.endpoint });
      await existing.unsubscribe();
    }
    return "ok";
  }
  if ((await Notification.requestPermission()) !== "granted") return "blocked";
  const subscription =
    existing ??
    (await reg.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: keyBytes((await routerKey()).publicKey),
    }));
  await send("POST", { ...subscription.toJSON(), ...(mode === "chosen" ? { nodes } : {}) });
  return "ok";
}

const DESCRIBE: Record<Mode, string> = {
  off: "Off on this device.",
  all: "On for all your nodes.",
  chosen: "On for the chosen nodes.",
};

export function NotificationsView(props: { nodes: ConsoleNode[] }) {
  const [status, setStatus] = useState<Status>("loading");
  /** What the router keeps for this device; `mode` and `chosen` are what the form shows. */
  const [saved, setSaved] = useState<Mode>("off");
  const [mode, setMode] = useState<Mode>("off");
  const [chosen, setChosen] = useState<string[]>([]);
  const [problem, setProblem] = useState("");

  useEffect(() => {
    if (!supported()) return setStatus("unsupported");
    if (Notification.permission === "denied") setStatus("blocked");
    currentState()
      .then((state) => {
        setSaved(state.mode);
        setMode(state.mode);
        setChosen(state.nodes);
        if (Notification.permission !== "denied") setStatus("ready");
      })
      .catch(() => setStatus("ready"));
  }, []);

  const change = (next: Mode, nodes: string[]) => {
    setMode(next);
    setChosen(nodes);
    setProblem("");
    if (next === "chosen" && nodes.length === 0) return setProblem("Choose at least one node.");
    setStatus("busy");
    apply(next, nodes)
      .then((result) => {
        if (result === "blocked") setMode(saved);
        else setSaved(next);
        setStatus(result === "blocked" ? "blocked" : "ready");
      })
      .catch((error: unknown) => {
        setProblem(`Not changed: ${(error as Error)?.message ?? error}`);
        setMode(saved);
        setStatus("ready");
      });
  };

  if (status === "unsupported")
    return (
      <section class="panel notifications" aria-label="Notifications">
        <h2>Notifications</h2>
        <p class="empty">
          This browser cannot show notifications (on an iPhone: add the console to the Home Screen first).
        </p>
      </section>
    );
  const disabled = status === "loading" || status === "busy";
  const toggle = (node: string, on: boolean) =>
    change("chosen", on ? [...chosen, node] : chosen.filter((id) => id !== node));
  return (
    <section class="panel notifications" aria-label="Notifications">
      <h2>Notifications</h2>
      <p class="push-state" role="status">
        {status === "blocked"
          ? "Blocked: allow notifications for this site in the browser's settings."
          : status === "loading"
            ? "Checking…"
            : DESCRIBE[saved]}
      </p>
      <fieldset class="push-mode" disabled={disabled}>
        <legend>Tell this device when work is done or waiting</legend>
        {(["off", "all", "chosen"] as const).map((value) => (
          <label key={value} class="push-choice">
            <input
              type="radio"
              name="push-mode"
              value={value}
              checked={mode === value}
              onChange={() => change(value, value === "chosen" ? chosen : [])}
            />
            {value === "off" ? "Off" : value === "all" ? "All nodes" : "Chosen nodes"}
          </label>
        ))}
      </fieldset>
      {mode === "chosen" ? (
        <fieldset class="push-nodes" disabled={disabled}>
          <legend>Which nodes</legend>
          {props.nodes.length === 0 ? <p class="empty">No node serves you yet.</p> : null}
          {props.nodes.map((node) => (
            <label key={node.id} class="push-choice">
              <input
                type="checkbox"
                checked={chosen.includes(node.id)}
                onChange={(event) => toggle(node.id, (event.target as HTMLInputElement).checked)}
              />
              {node.name}
            </label>
          ))}
        </fieldset>
      ) : null}
      {problem ? <p class="push-problem">{problem}</p> : null}
    </section>
  );
}
