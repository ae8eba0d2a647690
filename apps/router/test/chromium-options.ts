// How the tests start Debian's chromium (through playwright-core).

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  // CI runs as root, where chromium's sandbox refuses to start.
  "--no-sandbox",
  // The router under test listens on loopback, a real one on a public address: without this a
  // page chromium files as public (a blob opened in a new tab) could not reach the router, and a
  // test of what such a page can do would pass for a reason no real attack meets.
  // The WebUI omnibox popups: headless chromium builds them for every new window (each browser
  // context's first page) in a renderer of their own, about 1 CPU-s apiece, and no test has an
  // address bar to type in. (One list: chromium keeps only the last --disable-features.)
  `--disable-features=${["LocalNetworkAccessChecks", "WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "WebUIOmniboxFullPopup"].join(",")}`,
];
