import { existsSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type FakeTelegram,
  killProcesses,
  repoRoot,
  startFakeResponses,
  type TelegramCall,
  waitFor,
} from "@phonework/testkit";
import type { Chat, User } from "grammy/types";
import { describe, expect, it } from "vitest";
import { fakeTelegram, scope, startHost, startRouter, telegramChat } from "./telegram-e2e-support.ts";

// The verification flow of a coding session, on Telegram: `phonework router` with the real grammY
// against the fake Bot API, two `phonework host` processes, one running the real `codex app-server`
// offline against a fake Responses API. One test: the processes are slow to start.

const CODEX_BIN = join(repoRoot, "node_modules", ".bin", "codex");
const INTERVAL_MS = 1_000;
/** Two calls of one client, timed by the fake as they arrive, may come this much closer than sent. */
const ARRIVAL_JITTER_MS = 100;

const messageIdOf = (call: TelegramCall) => (call.result as { message_id?: number } | undefined)?.message_id;

/** Presses a button of a bot message and resolves with the answer the presser saw. */
async function press(fake: FakeTelegram, from: User, chat: Chat, messageId: number, label: string) {
  const button = fake
    .transcript(chat.id)
    .find((entry) => entry.message_id === messageId)
    ?.keyboard?.flat()
    .find((entry) => entry.text === label);
  if (!button || !("callback_data" in button)) throw new Error(`no button ${label} on message ${messageId}`);
  const update = fake.pressButton({ from, chat, messageId, data: button.callback_data ?? "" });
  const id = update.callback_query?.id;
  const answer = await waitFor(() => fake.callbackAnswers().find((a) => a.callback_query_id === id), {
    message: `the answer to pressing ${label}`,
  });
  return answer.text;
}

describe("Telegram: nodes, progress, result modes, approvals and a full queue (router + hosts + real Codex)", () => {
  it("runs the verification flow end to end", async () => {
    const model = await startFakeResponses();
    scope.add(() => model.close());
    const root = realpathSync(scope.tempDir());
    for (const sub of ["work/demo", "home", "codex-home", "data", "tmp"])
      mkdirSync(join(root, sub), { recursive: true });
    writeFileSync(join(root, "codex-home", "config.toml"), model.codexConfig());
    // Runs after the hosts stopped (cleanup goes newest first): anything of Codex's still there.
    scope.add(() => {
      killProcesses((_cmdline, environ) => environ.includes(join(root, "codex-home")));
    });
    const fake = await fakeTelegram();
    const ann = fake.user({ first_name: "Ann", username: "ann" });
    const annChat = fake.privateChat(ann);
    const router = await startRouter(fake, {
      ALLOWED_USERS: String(ann.id),
      PROGRESS_INTERVAL_S: String(INTERVAL_MS / 1000),
    });
    await startHost(router, "box-a", {
      SERVES_USERS: String(ann.id),
      WORKING_DIR: join(root, "work"),
      DATA_DIR: join(root, "data"),
      CODEX_BIN,
      CODEX_APPROVAL_POLICY: "on-request",
      CODEX_SANDBOX: "workspace-write",
      MAX_PENDING: "1",
      STOP_GRACE_S: "2",
      HOME: join(root, "home"),
      CODEX_HOME: join(root, "codex-home"),
      // Codex's sandbox (bubblewrap, where installed) needs its helper beside CODEX_HOME, which it
      // refuses to create under the temp dir: so the temp dir is elsewhere for this host.
      TMPDIR: join(root, "tmp"),
      OPENAI_API_KEY: "sk-test",
      // Codex has its own provider; this keeps the (unused) assistant off the network too.
      OPENAI_BASE_URL: model.url,
    });
    await startHost(router, "box-b", { SERVES_USERS: String(ann.id) });
    const chat = telegramChat(fake, ann);

    // /node: the nodes as buttons. A press is the user choosing; the row answers once.
    const nodeAsk = chat.send("/node");
    const picker = await chat.waitForBot(/^No active node\. Use \/node <name> to pick one\.$/);
    expect(picker.replyTo).toBe(nodeAsk.message?.message_id);
    expect(picker.keyboard?.map((row) => row.map((button) => button.text))).toEqual([["box-a"], ["box-b"]]);
    expect(await press(fake, ann, annChat, picker.message_id, "box-a")).toBe("✓ box-a");
    await chat.waitForBot(/^✅ Active node: box-a\.$/, picker.message_id);
    expect(await press(fake, ann, annChat, picker.message_id, "box-a")).toBe("Already answered.");

    // Progress and result modes here; a turn's details (replies under it) are telegram-details.e2e's.
    await chat.waitForBot(
      /^✅ Details in this chat: not shown/,
      chat.send("/details off").message?.message_id,
    );

    // A Codex turn in the default `send` mode: progress is one message, edited at most once per
    // interval, marked done; the answer is a new message (naming its node: Ann has two).
    model.script(
      { call: { name: "exec_command", arguments: { cmd: "sleep 0.7; echo one" } } },
      { call: { name: "exec_command", arguments: { cmd: "sleep 0.7; echo two" } } },
      { call: { name: "exec_command", arguments: { cmd: "sleep 0.7; echo three" } } },
      { text: "All three ran." },
    );
    const turnAsk = chat.send("/new demo codex run three steps");
    const turnId = turnAsk.message?.message_id ?? 0;
    const answer = await chat.waitForBot(/^\[box-a\] All three ran\.$/, turnId, 60_000);
    const progress = chat
      .botMessages()
      .filter((m) => m.message_id > turnId && m.message_id < answer.message_id);
    expect(progress).toHaveLength(1);
    const progressId = progress[0]?.message_id;
    expect(progress[0]?.text).toMatch(
      /^… 🆕 Session #1: codex in demo\..*\n(… running: .*\n)*… running: .*echo three.*\n✅ done$/s,
    );
    expect(answer.replyTo).toBe(turnId);
    // Its calls, as the fake received them: sent once, then edited, at most once per interval until
    // the answer came (the last edit, "✅ done", goes out with the answer).
    const opened = fake.callsOf("sendMessage").find((call) => messageIdOf(call) === progressId);
    const edits = fake.callsOf("editMessageText");
    expect(edits.map((call) => Number(call.params.message_id))).toEqual(edits.map(() => progressId));
    expect(edits.length).toBeGreaterThanOrEqual(3);
    const times = [opened, ...edits.slice(0, -1)].map((call) => call?.at ?? Number.NaN);
    const gaps = times.slice(1).map((at, i) => at - (times[i] ?? Number.NaN));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(INTERVAL_MS - ARRIVAL_JITTER_MS);

    // `replace`: the answer takes the progress message's place (an edit, no new message).
    const modeAsk = chat.send("/result replace");
    await chat.waitForBot(
      /^✅ Results in this chat: replace the progress message/,
      modeAsk.message?.message_id,
    );
    model.script(
      { call: { name: "exec_command", arguments: { cmd: "echo again" } } },
      { text: "Replaced in place." },
    );
    const sendsBefore = fake.callsOf("sendMessage").length;
    const replaceAsk = chat.send("once more");
    const replaced = await chat.waitForBot(
      /^\[box-a\] Replaced in place\.$/,
      replaceAsk.message?.message_id,
      60_000,
    );
    expect(replaced.history.map((version) => version.text)).toContainEqual(
      expect.stringMatching(/running: .*echo again/),
    );
    expect(fake.callsOf("sendMessage").slice(sendsBefore)).toHaveLength(1); // the progress message
    expect(fake.callsOf("editMessageText").at(-1)?.params).toMatchObject({
      message_id: replaced.message_id,
      text: "[box-a] Replaced in place.",
    });

    // An approval request comes with Approve and Deny; pressing Approve lets the turn finish.
    model.script(
      {
        call: {
          name: "exec_command",
          arguments: {
            cmd: "touch approved.txt",
            sandbox_permissions: "require_escalated",
            justification: "create approved.txt",
          },
        },
      },
      (request) => ({ text: `Created it: ${model.toolOutputs(request).at(-1) ?? ""}` }),
    );
    const approvalAsk = chat.send("create approved.txt");
    const approval = await chat.waitForBot(
      /^\[box-a\] 🔐 Codex in demo asks to run: .*touch approved\.txt/,
      approvalAsk.message?.message_id,
      60_000,
    );
    expect(approval.keyboard?.map((row) => row.map((button) => button.text))).toEqual([["Approve", "Deny"]]);
    const approvalId = /\/approve ([0-9a-f]{4})/.exec(approval.text ?? "")?.[1];
    expect(await press(fake, ann, annChat, approval.message_id, "Approve")).toBe("✓ Approve");
    await chat.waitForBot(new RegExp(`^\\[box-a\\] ✅ Approved ${approvalId}\\.$`), approval.message_id);
    // In `replace` mode the answer takes the place of the turn's progress message.
    const done = await chat.waitForBot(/^\[box-a\] Created it:/, approvalAsk.message?.message_id, 60_000);
    expect(done.history.map((version) => version.text)).toContainEqual(
      expect.stringMatching(/running: .*touch approved\.txt/),
    );
    expect(existsSync(join(root, "work", "demo", "approved.txt"))).toBe(true);
    expect(await press(fake, ann, annChat, approval.message_id, "Deny")).toBe("Already answered.");

    // A full queue (MAX_PENDING=1, one slow turn running) is said at once.
    model.script({ delayMs: 30_000, reply: { text: "too late" } });
    const requestsBefore = model.requests.length;
    chat.send("take your time");
    await waitFor(() => model.requests.length > requestsBefore, {
      timeoutMs: 30_000,
      message: "the slow turn",
    });
    const fullAt = Date.now();
    const fullAsk = chat.send("and this too");
    const full = await chat.waitForBot(/queue full/, fullAsk.message?.message_id);
    expect(Date.now() - fullAt).toBeLessThan(3_000);
    expect(full.text).toBe('🚦 Node "box-a" is busy: queue full (max 1). Try again in a moment.');
    expect(full.replyTo).toBe(fullAsk.message?.message_id);
    const stopAsk = chat.send("/stop");
    await chat.waitForBot(/Stopped\./, stopAsk.message?.message_id, 20_000);
  }, 120_000);
});
