import type { Button } from "@phonework/protocol";

// Buttons a node puts under its messages are bound to that node: a press is sent as
// "@<node> <command>", so it reaches the node that offered it and nothing else. A node is not
// trusted with the router's own commands: a compromised host could otherwise label "/share
// home-pc someone" as "Approve" and have an admin press it.

export function bindToNode(nodeId: string, rows: readonly (readonly Button[])[]): Button[][] {
  return rows.map((row) =>
    row.map((button) => ({ label: button.label, command: `@${nodeId} ${button.command}` })),
  );
}
