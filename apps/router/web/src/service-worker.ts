// The console's service worker: keeps the app's shell (the page, its script, styles, manifest and
// icons) so the installed app opens at once, and nothing else — the chat, terminals and the API are
// live, always from the network (never even seen here: only shell requests are answered).
// Network first: online, the page is always the newest build; the cache is only for offline.

// The worker's own globals, declared here: the page's tsconfig has the DOM's types, not WebWorker's.
interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  readonly request: Request;
  respondWith(response: Promise<Response>): void;
}
interface WorkerScope {
  addEventListener(type: "install" | "activate", listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: "fetch", listener: (event: FetchEvent) => void): void;
  skipWaiting(): Promise<void>;
  readonly clients: { claim(): Promise<void> };
  readonly location: Location;
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
