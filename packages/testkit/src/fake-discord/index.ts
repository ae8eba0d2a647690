export {
  type DiscordAttachmentInput,
  type DiscordCall,
  type DiscordChannel,
  type DiscordFault,
  type DiscordMessage,
  type DiscordMessageInput,
  type DiscordTranscriptEntry,
  type DiscordUser,
  type FakeDiscord,
  type FakeDiscordOptions,
  startFakeDiscord,
} from "./start.ts";
