import type { FakeNode } from "@phonework/testkit";
import { connectFakeNode, makeNodeKey, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { ADMIN, pairedNode, startPairingRouter } from "./pairing-support.ts";
import { memoryId, onCleanup, type TestRouter } from "./support.ts";

// One view across nodes, over a real router and nodes on real sockets (fake hosts, paired through
// chat by the admin): /tasks asked of every online node at once and answered in one message, and
// /nodes and /status that say honestly which nodes are online, offline or revoked.

type Forward = { type: string; id: string; text: string };

/** Answers every forward with `answer(text)`; `undefined` leaves it unanswered. */
function answering(
  node: FakeNode,
  answer: (text: string) => { text: string; buttons?: unknown } | undefined,
): Forward[] {
  const forwards: Forward[] = [];
  node.socket.on("message", (data) => {
    const frame = JSON.parse(data.toString()) as Forward;
    if (frame.type !== "forward") return;
    forwards.push(frame);
    const reply = answer(frame.text);
    if (reply)
      node.send({ type: "forward_response", id: frame.id, delivery_id: `reply-${frame.id}`, ...reply });
  });
  return forwards;
}

/** Sends a message and waits for the next message the user gets. */
async function say(t: TestRouter, text: string): Promise<string> {
  const before = t.chat.textsFor(ADMIN).length;
  t.chat.receive({ userId: ADMIN, text });
  return waitFor(() => t.chat.textsFor(ADMIN)[before], { message: `an answer to ${text}` });
}

const NO_TASKS = "No background tasks yet.";
const WORK_TASKS = "Tasks:\n⏳ #a1 running 3s — make release";

describe("one view across nodes", () => {
  it("another user's node is neither asked nor named by /tasks", async () => {
    const t = await startPairingRouter({ ALLOWED_USERS: "u1,u2" });
    const home = answering((await pairedNode(t, "home-pc")).node, () => ({ text: NO_TASKS }));
    const laptop = answering((await pairedNode(t, "laptop")).node, () => ({ text: NO_TASKS }));
    // bob-pc is u2's (paired for u2, as `phonework pair bob-pc --owner u2` does) and never shared.
    const minted = t.router.pairing.pair("bob-pc", memoryId("u2"));
    if (!minted.ok) throw new Error(minted.error);
    const bobNode = await connectFakeNode({ url: t.nodeUrl, nodeId: "bob-pc" });
    onCleanup(() => bobNode.kill());
    await bobNode.registerWithKey(makeNodeKey(), "bob-pc", { joinCode: minted.value.code });
    const bob = answering(bobNode, () => ({ text: "bob's secret tasks" }));

    const answer = await say(t, "/tasks");
    expect(answer).toContain("[home-pc, laptop]");
    expect(answer).not.toContain("bob");
    expect([home.length, laptop.length, bob.length]).toEqual([1, 1, 0]);
  });

  it("/tasks asks every online node once and answers in one message, each part tagged with its node; @node /tasks asks one", async () => {
    const t = await startPairingRouter({ REQUEST_TIMEOUT_S: 0.6 });
    const nodes = {
      home: (await pairedNode(t, "home-pc")).node,
      laptop: (await pairedNode(t, "laptop")).node,
      work: (await pairedNode(t, "work-srv")).node,
      slow: (await pairedNode(t, "slow-pc")).node,
      old: (await pairedNode(t, "old-pc")).node,
    };
    const asked = {
      home: answering(nodes.home, () => ({ text: NO_TASKS })),
      laptop: answering(nodes.laptop, () => ({ text: NO_TASKS })),
      work: answering(nodes.work, () => ({
        text: WORK_TASKS,
        buttons: [[{ label: "Kill #a1", command: "/kill a1" }]],
      })),
      slow: answering(nodes.slow, () => undefined),
    };
    nodes.old.close();
    await waitFor(() => t.router.registry.get("old-pc")?.status === "offline");
    expect(await say(t, "/node home-pc")).toBe("✅ Active node: home-pc.");

    const sentBefore = t.chat.sent.length;
    const answer = await say(t, "/tasks");
    expect(answer).toMatch(
      new RegExp(
        [
          `^\\[home-pc, laptop\\] ${NO_TASKS}`,
          "\\[slow-pc\\] ⏱️ did not answer in time; it may still be working\\.",
          `\\[work-srv\\] ${WORK_TASKS}`,
          "Offline, not asked: old-pc \\(last seen \\d+s ago\\)\\.$",
        ].join("\n\n"),
      ),
    );
    // One message, with the node's button bound to it; each node asked once.
    expect(t.chat.sent.length).toBe(sentBefore + 1);
    expect(
      t.chat.sent
        .at(-1)
        ?.buttons?.flat()
        .map((b) => b.label),
    ).toEqual(["Kill #a1 · work-srv"]);
    expect([asked.home, asked.laptop, asked.work, asked.slow].map((f) => f.map((x) => x.text))).toEqual([
      ["/tasks"],
      ["/tasks"],
      ["/tasks"],
      ["/tasks"],
    ]);
    // Shown once, each answer is acknowledged to its node's outbox.
    for (const [node, forwards] of [
      [nodes.home, asked.home],
      [nodes.work, asked.work],
    ] as const)
      await node.inbox.next(
        "push_ack",
        (ack) => ack.delivery_id === `reply-${forwards[0]?.id}` && ack.ok === true,
      );

    // The button reaches the node that offered it, and only that one.
    const shownBefore = t.chat.textsFor(ADMIN).length;
    await t.chat.press("Kill #a1 · work-srv");
    await waitFor(() => asked.work.length === 2);
    expect(asked.work[1]?.text).toBe("/kill a1");
    // Its answer is shown before the next question, so it is not taken for that one's.
    await waitFor(() => t.chat.textsFor(ADMIN).length > shownBefore, { message: "the kill's answer" });

    expect(await say(t, "@home-pc /tasks")).toBe(`[home-pc] ${NO_TASKS}`);
    expect([asked.home, asked.laptop, asked.slow].map((f) => f.length)).toEqual([2, 1, 1]);
  });

  it("/nodes lists online, offline and revoked nodes under their own headings; /status names a node once", async () => {
    const t = await startPairingRouter();
    await pairedNode(t, "home-pc");
    const { node: work } = await pairedNode(t, "work-srv", { display_name: "Work Box" });
    await pairedNode(t, "old-pc");
    work.close();
    await waitFor(() => t.router.registry.get("work-srv")?.status === "offline");
    expect(await say(t, "/revoke old-pc")).toMatch(/^⛔ old-pc revoked/);
    await say(t, "/node home-pc");

    const listing = (await say(t, "/nodes")).split("\n");
    expect(listing.slice(0, 6)).toEqual([
      "Online:",
      expect.stringMatching(/^→ home-pc\s+\[ACTIVE\]\s+sessions=0\s+online \d+s {2}owner: memory:u1$/),
      "Offline:",
      expect.stringMatching(/^ {2}work-srv\s+sessions=0\s+last seen \d+s ago {2}\(Work Box\)/),
      "Revoked (keys refused):",
      expect.stringMatching(/^ {2}old-pc\s+sessions=0\s+revoked/),
    ]);
    expect(listing.join("\n")).not.toContain("Connected Nodes");

    const status = await say(t, "/status");
    expect(status).toMatch(/^• home-pc — online \d+s; owner memory:u1/m);
    expect(status).toMatch(/^• work-srv \(Work Box\) — offline \(last seen \d+s ago\)/m);
    expect(status).not.toContain("(home-pc)");
  });
});
