export { checkVapid, decryptPush, type VapidClaims } from "./push-crypto.ts";
export { newPushSubscriber, type PushSubscriber } from "./push-subscriber.ts";
export { type FakePush, type ReceivedPush, startFakePush } from "./start.ts";
