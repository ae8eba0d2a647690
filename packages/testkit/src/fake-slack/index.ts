export { formRequest, jsonRequest, postSigned, signSlackRequest } from "./http-driver.ts";
export type { MessageInput, PressInput, SlashInput } from "./payloads.ts";
export { startFakeSlack } from "./start.ts";
export type * from "./types.ts";
export type { FakeSlack, UserMessage } from "./types-fake.ts";
