import {
  createTestLogger,
  decodeDataUrl,
  type FakeOpenAI,
  imageFixture,
  imageHeader,
  messageEvent,
  startFakeFeishu,
  startFakeOpenAI,
  startFakeSlack,
  waitFor,
} from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RouterConfigSchema } from "../src/config/router-config.ts";
import { selectChatAdapters } from "../src/config/select-adapters.ts";
import { createRouter } from "../src/create-router.ts";
import { openRouterDatabase, routerDatabasePath } from "../src/database/router-db.ts";
import { createTerminalAdapter } from "../src/platforms/stdin/stdin-adapter.ts";
import { ADMIN_TOKEN, onCleanup, SECRET, startTestHost, tempDataDir } from "./support.ts";

// Images users send on Feishu and Slack: a real router (the platforms' real SDKs against their
// fakes) and a real host whose model reads images; the image arrives at the fake model as an image
// part beside the user's words. (Telegram: telegram-images.e2e.test.ts, over real processes.)

let model: FakeOpenAI;
beforeAll(async () => {
  model = await startFakeOpenAI();
});
afterAll(() => model.close());

/** A router with the chat platforms `env` configures, and a host with the fake model behind it. */
async function routerAndHost(env: Record<string, unknown>) {
  const config = RouterConfigSchema.parse({
    ROUTER_SECRET: SECRET,
    ADMIN_TOKEN,
    ROUTER_HOST: "127.0.0.1",
    ROUTER_PORT: 0,
    DATA_DIR: tempDataDir(),
    PROGRESS_INTERVAL_S: 0,
    ...env,
  });
  const { logger } = createTestLogger("warn");
  const db = openRouterDatabase(routerDatabasePath(config.DATA_DIR));
  const chat = await selectChatAdapters(config, {
    logger,
    clock: { now: () => Date.now() },
    db,
    stdinIsTerminal: false,
    terminal: () => createTerminalAdapter({ input: process.stdin, output: process.stdout, filesDir: "/tmp" }),
  });
  const router = createRouter(config, { logger, chat, db });
  await router.start();
  onCleanup(() => router.close({ drainMs: 0 }));
  const host = startTestHost(router.nodeUrl, {
    DATA_DIR: tempDataDir(),
    WORKING_DIR: tempDataDir(),
    OPENAI_API_KEY: "k",
    OPENAI_BASE_URL: model.url,
    OPENAI_MAX_RETRIES: 0,
    OPENAI_VISION: "on",
  });
  await host.ready();
}

/** The model's request whose user text contains `words`, once it came. */
const requestWith = (words: string) =>
  waitFor(() => model.requests.find((r) => model.lastUserText(r).startsWith(words)), {
    message: `a model request for "${words}"`,
  });

const screenshotSize = (url: string | undefined) => imageHeader(decodeDataUrl(url ?? "").data);

describe("images in, on Feishu and Slack", () => {
  it("Feishu: an image in a post with words reaches the model as an image part and the words", async () => {
    const fake = await startFakeFeishu();
    onCleanup(() => fake.close());
    await routerAndHost({
      FEISHU_APP_ID: fake.appId,
      FEISHU_APP_SECRET: fake.appSecret,
      FEISHU_DOMAIN: fake.url,
      ALLOWED_USERS: "ou_alice",
    });
    await fake.pushEvent(
      messageEvent({
        openId: "ou_alice",
        chatId: "oc_images",
        chatType: "p2p",
        post: {
          title: "",
          content: [
            [
              { tag: "text", text: "feishu: why does this fail?" },
              { tag: "img", image_key: fake.userImage(imageFixture("screenshot.png")) },
            ],
          ],
        },
      }),
    );
    const request = await requestWith("feishu: why does this fail?");
    expect(model.imageUrls(request)).toHaveLength(1);
    expect(screenshotSize(model.imageUrls(request)[0])).toEqual({ format: "png", width: 640, height: 360 });
  });

  it("Slack: a shared PNG with a message reaches the model as an image part and the words", async () => {
    const fake = await startFakeSlack({ ackTimeoutMs: 1_000 });
    onCleanup(() => fake.close());
    const hal = fake.user({ name: "hal" });
    await routerAndHost({
      SLACK_BOT_TOKEN: fake.botToken,
      SLACK_APP_TOKEN: fake.appToken,
      SLACK_API_URL: fake.apiUrl,
      ALLOWED_USERS: hal.id,
    });
    const shared = fake.shareFile({
      name: "Screenshot 2026-11-27.png",
      data: imageFixture("screenshot.png"),
      mimetype: "image/png",
    });
    fake.sendMessage({
      user: hal.id,
      text: "slack: what is this error?",
      subtype: "file_share",
      files: [shared],
    });
    const request = await requestWith("slack: what is this error?");
    expect(model.imageUrls(request)).toHaveLength(1);
    expect(screenshotSize(model.imageUrls(request)[0])).toEqual({ format: "png", width: 640, height: 360 });
  });
});
