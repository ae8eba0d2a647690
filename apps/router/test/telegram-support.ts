import {
  afterEachTest,
  CleanupScope,
  createTestLogger,
  type FakeTelegram,
  type FakeTelegramOptions,
  startFakeTelegram,
  waitFor,
} from "@phonework/testkit";
import type {
  ButtonPress,
  ChannelMessage,
  PlatformAdapter,
  PlatformEvents,
} from "../src/platforms/platform-adapter.ts";
import {
  createTelegramAdapter,
  type TelegramAdapterOptions,
} from "../src/platforms/telegram/telegram-adapter.ts";

// The Telegram adapter on its own against the fake Bot API: no router, a recording PlatformEvents
// standing in for the shared layer, everything taken down after each test.

const scope = new CleanupScope();
afterEachTest(() => scope.run());

export const onCleanup = (step: () => void | Promise<void>) => scope.add(step);

export async function startFake(options: FakeTelegramOptions = {}): Promise<FakeTelegram> {
  const fake = await startFakeTelegram(options);
  scope.add(() => fake.close());
  return fake;
}

/** A promise the test settles by hand: the shared layer still storing a message. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** The shared layer, as the adapter sees it: records what arrives; each answer is the test's to script. */
export class RecordingEvents implements PlatformEvents {
  readonly messages: ChannelMessage[] = [];
  readonly presses: ButtonPress[] = [];
  onMessage: (message: ChannelMessage) => Promise<void> = async () => {};
  onButton: (press: ButtonPress) => Promise<string> = async () => "OK";

  message(message: ChannelMessage): Promise<void> {
    this.messages.push(message);
    return this.onMessage(message);
  }

  button(press: ButtonPress): Promise<string> {
    this.presses.push(press);
    return this.onButton(press);
  }

  /** Resolves once `count` messages have arrived (counting redeliveries). */
  async messageCount(count: number): Promise<ChannelMessage[]> {
    await waitFor(() => this.messages.length >= count, { intervalMs: 5, message: `${count} messages` });
    return this.messages;
  }

  /** The first message (arrived or to come) whose text is `text`. */
  messageWithText(text: string): Promise<ChannelMessage> {
    return waitFor(() => this.messages.find((m) => m.text === text), {
      intervalMs: 5,
      message: `a message "${text}"`,
    });
  }
}

export interface TestAdapter {
  adapter: PlatformAdapter;
  logs: ReturnType<typeof createTestLogger>["lines"];
}

/** An adapter on the fake (polling unless told), stopped at cleanup before the fake closes. */
export function telegramAdapter(
  fake: FakeTelegram,
  overrides: Partial<TelegramAdapterOptions> = {},
): TestAdapter {
  const { logger, lines } = createTestLogger();
  const adapter = createTelegramAdapter({
    name: "telegram",
    token: fake.token,
    apiRoot: fake.url,
    mode: { kind: "polling" },
    logger,
    pollRetryMs: 20,
    ...overrides,
  });
  scope.add(() => adapter.stop());
  return { adapter, logs: lines };
}

/** Starts polling; `events` scripted before the start sees every update. */
export async function startPolling(
  fake: FakeTelegram,
  events = new RecordingEvents(),
  overrides: Partial<TelegramAdapterOptions> = {},
): Promise<TestAdapter & { events: RecordingEvents }> {
  const test = telegramAdapter(fake, overrides);
  await test.adapter.start(events);
  return { ...test, events };
}

/** The error a promise rejects with (undefined if it resolves). */
export const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );
