import { connectFakeNode, type FakeNode, makeNodeKey, type NodeKey, waitFor } from "@phonework/testkit";
import { memoryId, onCleanup, startTestRouter, type TestRouter } from "./support.ts";

// A router with an admin (u1) who pairs fake nodes through chat, as a person would.

export const ADMIN = "u1";
/** The admin's id as the router stores it and hosts receive it. */
export const ADMIN_ID = memoryId(ADMIN);

export async function startPairingRouter(
  overrides: Parameters<typeof startTestRouter>[0] = {},
  deps: Parameters<typeof startTestRouter>[1] = {},
) {
  return startTestRouter({ ADMINS: ADMIN, ...overrides }, deps);
}

/** The last line of a chat answer that looks like a join code. */
export async function askJoinCode(t: TestRouter, nodeId: string, asker = ADMIN): Promise<string> {
  const before = t.chat.textsFor(asker).length;
  t.chat.receive({ userId: asker, text: `/pair ${nodeId}` });
  // The answer after `before` (a notice, such as another node's join, may come first).
  const reply = await waitFor(() =>
    t.chat
      .textsFor(asker)
      .slice(before)
      .find((text) => !text.includes("is paired and online")),
  );
  const code = reply.split("\n").find((line) => line.startsWith(`${nodeId}:`));
  if (!code) throw new Error(`no join code in: ${reply}`);
  return code;
}

/** A fake node that joined with a fresh key (paired through chat by the admin). */
export async function pairedNode(
  t: TestRouter,
  nodeId: string,
  fields: Record<string, unknown> = {},
): Promise<{ node: FakeNode; key: NodeKey }> {
  const code = await askJoinCode(t, nodeId);
  const key = makeNodeKey();
  const node = await connectFakeNode({ url: t.nodeUrl, nodeId });
  onCleanup(() => node.kill());
  const answer = await node.registerWithKey(key, nodeId, { joinCode: code, fields });
  if (answer.type !== "register_ok") throw new Error(`join refused: ${JSON.stringify(answer)}`);
  return { node, key };
}

/** Connects again with `key` (no join code). */
export async function reconnect(
  t: TestRouter,
  key: NodeKey,
  nodeId: string,
  fields: Record<string, unknown> = {},
) {
  const node = await connectFakeNode({ url: t.nodeUrl, nodeId });
  onCleanup(() => node.kill());
  const answer = await node.registerWithKey(key, nodeId, { fields });
  return { node, answer };
}

/** Answers every forward with "<nodeId>: <text>". */
export function echo(node: FakeNode, nodeId: string): void {
  node.socket.on("message", (data) => {
    const frame = JSON.parse(data.toString()) as { type: string; id?: string; text?: string };
    if (frame.type === "forward")
      node.send({
        type: "forward_response",
        id: frame.id,
        delivery_id: `reply-${frame.id}`,
        text: `${nodeId}: ${frame.text}`,
      });
  });
}
