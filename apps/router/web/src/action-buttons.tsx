import type { Button } from "@phonework/protocol";

// The buttons of an overview item. Each runs its command on that item's node as the user's own
// chat message (the node decides whether it may), so its answer also shows in the chat.

export type Act = (node: string, command: string) => void;

export function ActionButtons({ node, actions, act }: { node: string; actions: Button[]; act: Act }) {
  if (actions.length === 0) return null;
  return (
    <div class="actions">
      {actions.map((action) => (
        <button
          type="button"
          key={action.command}
          class={/^(deny|cancel|stop)$/i.test(action.label) ? "danger" : undefined}
          onClick={() => act(node, action.command)}
        >
          {action.label}
        </button>
      ))}
    </div>
  );
}
