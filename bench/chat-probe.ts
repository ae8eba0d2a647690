import type { MemoryChatAdapter } from "../apps/router/src/platforms/memory/memory-adapter.ts";
import { simOwner } from "./sim-keys.ts";

// Inside the bench's router process: chat round trips through one simulated paired host while a
// storm runs. Every CHAT_PROBE_MS, if the host is online and no probe is out, its owner sends a
// message through the memory chat; the time until the host's echo is sent back to the chat is one
// sample (the router's intake, routing, forward, the host's answer and the delivery, all under load).

const CHAT_PROBE_MS = 100;
const PROBE_GIVE_UP_MS = 10_000;

export function startChatProbe(
  chat: MemoryChatAdapter,
  registry: { get(nodeId: string): { status: string } | undefined },
  nodeId: string,
): { stop(): number[] } {
  const samples: number[] = [];
  const user = simOwner(nodeId).replace(/^memory:/, "");
  let out: { text: string; at: number } | undefined;
  let seq = 0;
  const send = chat.send.bind(chat);
  chat.send = async (to, text, options) => {
    if (out && text === `${nodeId}: ${out.text}`) {
      samples.push(performance.now() - out.at);
      out = undefined;
    }
    return send(to, text, options);
  };
  const timer = setInterval(() => {
    if (out && performance.now() - out.at > PROBE_GIVE_UP_MS) out = undefined; // lost with a dropped link
    if (out || registry.get(nodeId)?.status !== "online") return;
    out = { text: `probe ${++seq}`, at: performance.now() };
    void chat.receive({ userId: user, text: out.text });
  }, CHAT_PROBE_MS);
  return {
    stop() {
      clearInterval(timer);
      chat.send = send;
      return samples;
    },
  };
}
