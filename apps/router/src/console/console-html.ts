import { THEME_COLOR } from "./pwa/app-icon.ts";
import { ICON_PATH, MANIFEST_PATH } from "./pwa/web-manifest.ts";

// The console's HTML: the app's shell, the login step and short notices. No inline script
// anywhere (the CSP allows none): behaviour comes from the bundled scripts under /console/assets/.

export const ASSETS_PREFIX = "/console/assets/";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string, head = ""): string {
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // same-origin, not no-referrer: with no-referrer a form's POST carries `Origin: null`, and the
    // router checks that origin. Other sites still never see the (code-bearing) address.
    '<meta name="referrer" content="same-origin">',
    `<link rel="icon" href="${ICON_PATH(192)}">`,
    `<link rel="manifest" href="${MANIFEST_PATH}">`,
    `<meta name="theme-color" content="${THEME_COLOR}">`,
    `<title>${escapeHtml(title)}</title>`,
    `<link rel="stylesheet" href="${ASSETS_PREFIX}console.css">`,
    head,
    "</head>",
    `<body>${body}</body>`,
    "</html>",
  ].join("\n");
}

/**
 * The app. `nonce` is this response's style nonce: the terminal (xterm.js) adds <style> elements,
 * and the page stamps them with it so the CSP admits them and nothing injected.
 */
export function appPage(nonce: string): string {
  return page(
    "PhoneWork console",
    `<div id="app"></div><script type="module" src="${ASSETS_PREFIX}console.js"></script>`,
    `<meta name="csp-nonce" content="${escapeHtml(nonce)}">`,
  );
}

/**
 * The link's landing page. Opening the link must not sign in by itself: chat apps fetch links to
 * preview them, which would use the code up. The code is exchanged by a POST from this page
 * (sent by login.js at once, or by the button without scripts).
 */
export function loginPage(code: string): string {
  return page(
    "PhoneWork console: sign in",
    [
      '<main class="notice">',
      "<h1>PhoneWork console</h1>",
      '<form id="login" method="post" action="/console/login">',
      `<input type="hidden" name="code" value="${escapeHtml(code)}">`,
      '<button type="submit">Open the console</button>',
      "</form>",
      "</main>",
      `<script src="${ASSETS_PREFIX}login.js"></script>`,
    ].join("\n"),
  );
}

/** A short notice (signed out, a refused link). */
export function noticePage(title: string, text: string): string {
  return page(
    `PhoneWork console: ${title}`,
    `<main class="notice"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></main>`,
  );
}
