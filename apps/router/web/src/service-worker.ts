// The console's service worker: keeps the app's shell (the page, its script, styles, manifest and
// icons) so the installed app opens at once, and nothing else — the chat, terminals and the API are
// live, always from the network (never even seen here: only shell requests are answered).
// Network first: online, the page is always the newest build; the cache is only for offline.
// It also shows the router's Web Push notifications; a tap opens (or focuses) the console, and an
// approval's Approve/Deny is posted to the router as the user's answer (/console/push/act).

// The worker's own globals, declared here: the page's tsconfig has the DOM's types, not WebWorker's.
interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  readonly request: Request;
  respondWith(response: Promise<Response>): void;
}
interface PushEvent extends ExtendableEvent {
  readonly data: { text(): string } | null;
}
interface NotificationEvent extends ExtendableEvent {
  readonly action: string;
  readonly notification: Notification;
}
interface WindowClient {
  readonly url: string;
  focus(): Promise<WindowClient>;
}
interface WorkerScope {
  addEventListener(type: "install" | "activate", listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: "fetch", listener: (event: FetchEvent) => void): void;
  addEventListener(type: "push", listener: (event: PushEvent) => void): void;
  addEventListener(type: "notificationclick", listener: (event: NotificationEvent) => void): void;
  skipWaiting(): Promise<void>;
  readonly clients: {
    claim(): Promise<void>;
    matchAll(options: { type: "window"; includeUncontrolled: boolean }): Promise<WindowClient[]>;
    openWindow(url: string): Promise<WindowClient | null>;
  };
  readonly registration: {
    showNotification(
      title: string,
      options: NotificationOptions & { actions?: NotificationAction[] },
    ): Promise<void>;
  };
  readonly location: Location;
}
interface NotificationAction {
  action: string;
  title: string;
}

const worker = self as unknown as WorkerScope;
const CACHE = "phonework-shell-v1";
const SHELL = [
  "/console/",
  "/console/assets/console.js",
  "/console/assets/console.css",
  "/console/manifest.webmanifest",
  "/console/icons/icon-192.png",
  "/console/icons/icon-512.png",
];

function isShell(url: URL): boolean {
  if (url.origin !== worker.location.origin) return false;
  return (
    SHELL.includes(url.pathname) ||
    url.pathname.startsWith("/console/assets/") ||
    url.pathname.startsWith("/console/icons/")
  );
}

async function fromNetworkFirst(request: Request): Promise<Response> {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    if (response.ok) await cache.put(request, response.clone());
    return response;
  } catch (error) {
    const cached = await cache.match(request, { ignoreSearch: true });
    if (cached) return cached;
    throw error;
  }
}

worker.addEventListener("install", (event) => {
  // Best effort: a shell file that cannot be fetched now is cached the next time it is.
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => Promise.allSettled(SHELL.map((path) => cache.add(path))))
      .then(() => worker.skipWaiting()),
  );
});

worker.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name !== CACHE).map((name) => caches.delete(name))))
      .then(() => worker.clients.claim()),
  );
});

worker.addEventListener("fetch", (event) => {
  const { request } = event;
  if (request.method !== "GET" || !isShell(new URL(request.url))) return; // live: straight to the network
  event.respondWith(fromNetworkFirst(request));
});

// ── Web Push ───────────────────────────────────────────────────────────────────

const CONSOLE = "/console/";
const ACT_PATH = "/console/push/act";

/** What the router pushes (push-payload.ts); read defensively, whatever arrives is shown as text. */
interface Pushed {
  title: string;
  body: string;
  tag?: string;
  url: string;
  node?: string;
  actions: NotificationAction[];
}

function pushedOf(text: string): Pushed {
  let data: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === "object") data = parsed as Record<string, unknown>;
  } catch {
    data = { body: text };
  }
  const string = (value: unknown) => (typeof value === "string" ? value : undefined);
  const actions = Array.isArray(data.actions) ? data.actions : [];
  const url = string(data.url);
  const tag = string(data.tag);
  const node = string(data.node);
  return {
    title: string(data.title) ?? "PhoneWork",
    body: string(data.body) ?? "",
    url: url?.startsWith(CONSOLE) ? url : CONSOLE,
    ...(tag ? { tag } : {}),
    ...(node ? { node } : {}),
    actions: actions
      .filter((a): a is NotificationAction => typeof a?.action === "string" && typeof a?.title === "string")
      .slice(0, 2),
  };
}

worker.addEventListener("push", (event) => {
  const pushed = pushedOf(event.data?.text() ?? "");
  event.waitUntil(
    worker.registration.showNotification(pushed.title, {
      body: pushed.body,
      icon: "/console/icons/icon-192.png",
      ...(pushed.tag ? { tag: pushed.tag } : {}),
      ...(pushed.actions.length ? { actions: pushed.actions } : {}),
      data: { url: pushed.url, node: pushed.node },
    }),
  );
});

/** Focuses an open console window, else opens one. */
async function openConsole(url: string): Promise<void> {
  const windows = await worker.clients.matchAll({ type: "window", includeUncontrolled: true });
  const open = windows.find((client) => new URL(client.url).pathname.startsWith(CONSOLE));
  if (open) await open.focus();
  else await worker.clients.openWindow(url);
}

/** The user's answer from the notification; refused (signed out, say): the console opens to answer there. */
async function act(node: string, command: string, url: string): Promise<void> {
  try {
    const response = await fetch(ACT_PATH, {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ node, command }),
    });
    if (response.ok) return;
  } catch {
    // Offline: the console says what happened once it can.
  }
  await openConsole(url);
}

worker.addEventListener("notificationclick", (event) => {
  const { notification, action } = event;
  notification.close();
  const data = (notification.data ?? {}) as { url?: string; node?: string };
  const url = data.url ?? CONSOLE;
  event.waitUntil(action && data.node ? act(data.node, action, url) : openConsole(url));
});
