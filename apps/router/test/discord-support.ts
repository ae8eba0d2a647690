import {
  type CleanupScope,
  createTestLogger,
  type FakeDiscord,
  type FakeDiscordOptions,
  startFakeDiscord,
} from "@phonework/testkit";
import { createDiscordAdapter } from "../src/platforms/discord/discord-adapter.ts";
import type { PlatformAdapter } from "../src/platforms/platform-adapter.ts";
import { RecordingEvents } from "./telegram-support.ts";

// The Discord adapter on its own against the fake Discord: no router, a recording PlatformEvents
// standing in for the shared layer (the same as Telegram's tests use). A file shares one fake
// world in the scope it gives (run in its afterAll: modules are shared between files here).

export { RecordingEvents };

export async function startFake(scope: CleanupScope, options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const fake = await startFakeDiscord(options);
  scope.add(() => fake.close());
  return fake;
}

export interface TestAdapter {
  adapter: PlatformAdapter;
  logs: ReturnType<typeof createTestLogger>["lines"];
}

/** An adapter on the fake, stopped at cleanup before the fake closes. */
export function discordAdapter(scope: CleanupScope, fake: FakeDiscord): TestAdapter {
  const { logger, lines } = createTestLogger();
  const adapter = createDiscordAdapter({ name: "discord", token: fake.token, apiUrl: fake.apiUrl, logger });
  scope.add(() => adapter.stop());
  return { adapter, logs: lines };
}

/** Connected to the gateway; `events` scripted before the start sees every dispatch. */
export async function startAdapter(
  scope: CleanupScope,
  fake: FakeDiscord,
  events = new RecordingEvents(),
): Promise<TestAdapter & { events: RecordingEvents }> {
  const test = discordAdapter(scope, fake);
  await test.adapter.start(events);
  return { ...test, events };
}
