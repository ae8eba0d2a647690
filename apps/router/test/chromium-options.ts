// How the tests start Debian's chromium (through playwright-core).

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  // CI runs as root, where chromium's sandbox refuses to start.
  "--no-sandbox",
  // The router under test listens on loopback, a real one on a public address: without this a
  // page chromium files as public (a blob opened in a new tab) could not reach the router, and a
  // test of what such a page can do would pass for a reason no real attack meets.
  "--disable-features=LocalNetworkAccessChecks",
];
