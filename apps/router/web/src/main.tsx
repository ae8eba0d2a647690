import "@xterm/xterm/css/xterm.css";
import "./console.css";
import { render } from "preact";
import { App } from "./app.tsx";
import { registerServiceWorker } from "./service-worker-registration.ts";
import { stampStyleNonces } from "./style-nonce.ts";

// The console page's entry: styles first admitted by the CSP (see style-nonce.ts), then the app,
// then the service worker that makes it installable.

stampStyleNonces();
const root = document.getElementById("app");
if (root) render(<App />, root);
registerServiceWorker();
