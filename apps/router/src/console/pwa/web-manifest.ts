import { ICON_SIZES, THEME_COLOR } from "./app-icon.ts";

// The console's web app manifest: what "Add to Home Screen" installs — a full-screen window on
// /console/ with the app's icons. Its paths are the routes of pwa-routes.ts.

export const MANIFEST_PATH = "/console/manifest.webmanifest";
export const SERVICE_WORKER_PATH = "/console/service-worker.js";
export const ICON_PATH = (size: number) => `/console/icons/icon-${size}.png`;

export function webManifest(): Record<string, unknown> {
  return {
    name: "PhoneWork console",
    short_name: "PhoneWork",
    description: "Run your computers from your phone.",
    id: "/console/",
    start_url: "/console/",
    scope: "/console/",
    display: "standalone",
    background_color: "#ffffff",
    theme_color: THEME_COLOR,
    icons: ICON_SIZES.map((size) => ({
      src: ICON_PATH(size),
      sizes: `${size}x${size}`,
      type: "image/png",
      purpose: "any",
    })),
  };
}
