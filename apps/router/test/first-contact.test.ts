import { createHost, HostConfigSchema, resolveIdentity } from "@phonework/host";
import { createTestLogger, type FakeTelegram, waitFor } from "@phonework/testkit";
import type { User } from "grammy/types";
import { describe, expect, it } from "vitest";
import { createRouter } from "../src/create-router.ts";
import { onCleanup, startTestHost, tempDataDir, testRouterConfig } from "./support.ts";
import { startFake, telegramAdapter } from "./telegram-support.ts";

// A new user's first minutes on Telegram: a router in this process with grammY on the fake Bot
// API, real hosts over real sockets. /start says what to do next, a node paired from chat is
// announced once when it first comes online, and command output arrives as <pre> in HTML mode.

async function telegramRouter() {
  const fake = await startFake();
  const ada = fake.user({ first_name: "Ada", username: "ada" }); // the admin
  const bob = fake.user({ first_name: "Bob", username: "bob" });
  const { adapter } = telegramAdapter(fake);
  const config = testRouterConfig({
    ADMINS: `telegram:${ada.id}`,
    ALLOWED_USERS: `telegram:${ada.id},telegram:${bob.id}`,
    CONSOLE: "off",
  });
  const router = createRouter(config, { logger: createTestLogger().logger, chat: [adapter] });
  await router.start();
  onCleanup(() => router.close({ drainMs: 0 }));
  return { fake, ada, bob, router, chat: (user: User) => conversation(fake, user) };
}

/** One user's private chat with the bot, as the fake's transcript shows it (entities as plain text). */
function conversation(fake: FakeTelegram, user: User) {
  const botTexts = () =>
    fake
      .transcript(user.id)
      .filter((entry) => entry.from === "bot")
      .map((entry) => entry.text ?? "");
  return {
    botTexts,
    /** Sends `text`; resolves with the first bot message after it that matches `pattern`. */
    async say(text: string, pattern: RegExp): Promise<string> {
      const before = botTexts().length;
      fake.injectText({ from: user, text });
      return waitFor(
        () =>
          botTexts()
            .slice(before)
            .find((t) => pattern.test(t)),
        {
          message: `a bot message matching ${pattern} (chat: ${fake.renderTranscript(user.id)})`,
        },
      );
    },
  };
}

/** A real host joining with a join code, or (no code) with the key it saved in `dataDir`. */
function joiningHost(nodeUrl: string, dataDir: string, joinCode?: string) {
  const config = HostConfigSchema.parse({
    ROUTER_URL: nodeUrl,
    NODE_ID: "home-pc",
    WORKING_DIR: tempDataDir(),
    DATA_DIR: dataDir,
    RECONNECT_MAX_DELAY_S: 0.2,
    ...(joinCode ? { JOIN_CODE: joinCode } : {}),
  });
  const { identity } = resolveIdentity({ ...config, nodeIdExplicit: false });
  const host = createHost(config, { logger: createTestLogger().logger, ...(identity ? { identity } : {}) });
  host.start();
  onCleanup(() => host.stop());
  return host;
}

const joinCodeIn = (reply: string) => /--join (home-pc:\S+)/.exec(reply)?.[1] ?? "no code";

describe("first contact on Telegram", () => {
  it("/start tells a user without a node how an admin pairs one, the admin how to pair, and a user with a node what to try", async () => {
    const t = await telegramRouter();
    const bob = t.chat(t.bob);
    const ada = t.chat(t.ada);

    const bobStart = await bob.say("/start", /Welcome to PhoneWork/);
    expect(bobStart).toContain("Ask an admin of this router to pair a PC for you");
    expect(bobStart).toContain("phonework host --join");
    expect(bobStart).toContain(`/share <name> telegram:${t.bob.id}`);
    // Anything else a user without a node sends gets the pairing steps too, not "start a host".
    const noNode = await bob.say("hello", /No node is serving you yet/);
    expect(noNode).toContain("/pair <name>");
    expect(noNode).toContain("phonework host --join");
    expect(noNode).not.toContain("pnpm host");

    const adaStart = await ada.say("/start", /Welcome to PhoneWork/);
    expect(adaStart).toContain("1. Send /pair <name> here");
    expect(adaStart).toContain("2. On that PC run: phonework host --join <the code it answers>");

    const code = joinCodeIn(await ada.say("/pair home-pc", /phonework host --join/));
    joiningHost(t.router.nodeUrl, tempDataDir(), code);
    await waitFor(() => ada.botTexts().some((text) => text.includes("home-pc is paired and online")));
    const withNode = await ada.say("/start", /Welcome to PhoneWork/);
    expect(withNode).toContain("Your nodes: home-pc (online).");
    expect(withNode).toMatch(/\/help — .*\n\/nodes — /);
    expect(ada.botTexts().join("\n")).not.toContain("Unknown command");
  });

  it("a paired host's first registration is announced to its owner once; its reconnects are not", async () => {
    const t = await telegramRouter();
    const ada = t.chat(t.ada);
    const code = joinCodeIn(await ada.say("/pair home-pc", /phonework host --join/));
    const dataDir = tempDataDir();
    const first = joiningHost(t.router.nodeUrl, dataDir, code);
    const announced = await waitFor(() =>
      ada.botTexts().find((text) => text.includes("home-pc is paired and online")),
    );
    expect(announced).toMatch(/^🎉 home-pc is paired and online: it works in \/\S+/);
    await first.stop();
    await waitFor(() => t.router.registry.get("home-pc")?.status === "offline");
    joiningHost(t.router.nodeUrl, dataDir); // the saved key, no code
    await waitFor(() => ada.botTexts().some((text) => text.includes('Node "home-pc" reconnected')));
    await ada.say("/nodes", /home-pc/); // everything sent on the reconnect has arrived by now
    expect(ada.botTexts().filter((text) => text.includes("paired and online"))).toHaveLength(1);
  });

  it("/shell output is a <pre> block in HTML parse mode; long output is split into parts that are each whole blocks", async () => {
    const t = await telegramRouter();
    await startTestHost(t.router.nodeUrl, {
      WORKING_DIR: tempDataDir(),
      SERVES_USERS: `telegram:${t.bob.id}`,
    }).ready();
    const bob = t.chat(t.bob);
    const sent = () => t.fake.callsOf("sendMessage").map((call) => call.params);

    await bob.say("/shell printf 'name  size\\nab    12\\n'", /name {2}size/);
    const table = sent().find((params) => String(params.text).includes("name  size"));
    expect(table?.parse_mode).toBe("HTML");
    expect(table?.text).toBe(
      "$ printf 'name  size\\nab    12\\n'\nexit code 0\nstdout:\n\n<pre>name  size\nab    12</pre>",
    );

    const before = sent().length;
    await bob.say("/shell seq 1 1500", /^\[1\/\d\]/);
    const parts = await waitFor(() => {
      const texts = sent()
        .slice(before)
        .map((params) => String(params.text));
      const count = Number(/^\[1\/(\d)\]/.exec(texts[0] ?? "")?.[1]);
      return texts.length === count ? texts : undefined;
    });
    expect(parts.length).toBeGreaterThan(1);
    const numbers: string[] = [];
    expect(parts[0]).toMatch(/^\[1\/\d\]\n\$ seq 1 1500\nexit code 0\nstdout:/);
    for (const part of parts) {
      // Each part is well-formed HTML: a <pre> opened in it is closed in it, none is left open.
      expect(part.split("<pre>").length).toBe(part.split("</pre>").length);
      numbers.push(
        ...Array.from(part.matchAll(/<pre>([\d\n]+)<\/pre>/g), (m) => m[1] ?? "").flatMap((b) =>
          b.split("\n"),
        ),
      );
    }
    expect(numbers).toEqual(Array.from({ length: 1500 }, (_, i) => String(i + 1)));
  });
});
