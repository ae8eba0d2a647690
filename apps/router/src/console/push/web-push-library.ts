import type WebPush from "web-push";

// The web-push library, loaded the first time a key pair is made or a push is sent: a router whose
// console is off (or whose users never turn pushes on) never reads it (with its big-number and
// ASN.1 code, ~250 KB of the bundle).

let loaded: Promise<typeof WebPush> | undefined;

export function webPushLibrary(): Promise<typeof WebPush> {
  loaded ??= import("web-push").then((module) => module.default);
  return loaded;
}
