import type { ForwardFrame } from "@phonework/protocol";
import type { ChatOwner } from "../contracts/chat-owner.ts";
import type { HostCommand } from "../contracts/host-command.ts";
import type { ChatTerminals } from "./chat-terminals.ts";

// /term and /keys: a program on a PTY of this host, for TUIs and interactive prompts, shown as
// its screen. One terminal per user on each node.

const owner = (request: ForwardFrame): ChatOwner => ({
  userId: request.user_id,
  chatId: request.chat_id,
  platform: request.platform,
});

export function terminalCommands(terminals: ChatTerminals): HostCommand[] {
  return [
    {
      name: "term",
      usage: "/term <command> | /term | /term close",
      description:
        "run a program in a terminal and see its screen; /term shows it again, /term close ends it",
      run: async (args, request) => {
        if (!args) return terminals.show(owner(request));
        if (args === "close") return terminals.close(owner(request));
        return terminals.run(owner(request), args);
      },
    },
    {
      name: "keys",
      usage: "/keys <text>",
      description: "type into your /term program: text and keys such as <Enter> <Tab> <Esc> <BS> <Up> <C-c>",
      run: async (args, request) =>
        args
          ? terminals.keys(owner(request), args)
          : "Usage: /keys <text>, with keys such as <Enter>, <Tab>, <Esc>, <BS>, <Up>, <Down>, <Left>, <Right>, <C-c>",
    },
  ];
}
