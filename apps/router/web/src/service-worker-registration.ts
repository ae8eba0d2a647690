// Registers the console's service worker (service-worker.ts, served from /console/ so that it
// covers the whole console). A browser without them, or a refusal, leaves the page as it was.

export const SERVICE_WORKER_URL = "/console/service-worker.js";

export function registerServiceWorker(): void {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register(SERVICE_WORKER_URL, { scope: "/console/" }).catch(() => {
    // Not installable then (a private window, a refusal): the page works the same.
  });
}
