import type {
  AdminNode,
  ConsoleMessage,
  ConsoleNode,
  ConsoleServerFrame,
} from "../../src/console/console-frames.ts";
import type { NodeOverviewState } from "./overview-items.ts";

// What the page shows, built from the router's frames (terminal frames go to their panels).

export interface ConsoleState {
  user: string;
  admin: boolean;
  nodes: ConsoleNode[];
  /** Admins: every node the router knows. */
  adminNodes: AdminNode[];
  /** What each node last said the user is doing there, by node id. */
  overviews: Record<string, NodeOverviewState>;
  messages: ConsoleMessage[];
  clockSkewMs: number;
  toasts: Array<{ id: number; text: string }>;
}

export const initialState: ConsoleState = {
  user: "",
  admin: false,
  nodes: [],
  adminNodes: [],
  overviews: {},
  messages: [],
  clockSkewMs: 0,
  toasts: [],
};

/** Messages the page keeps (the router keeps its own, shorter, history for pages opened later). */
const MAX_MESSAGES = 300;

export type StateFrame = Extract<
  ConsoleServerFrame,
  { type: "hello" | "nodes" | "overview" | "message" | "edit" | "toast" }
>;

let toastIds = 0;

export function reduce(
  state: ConsoleState,
  frame: StateFrame | { type: "untoast"; id: number },
): ConsoleState {
  switch (frame.type) {
    case "hello":
      return {
        ...state,
        user: frame.user,
        admin: frame.admin,
        nodes: frame.nodes,
        adminNodes: frame.admin_nodes ?? [],
        messages: frame.messages,
        clockSkewMs: frame.now - Date.now(),
      };
    case "nodes":
      return {
        ...state,
        nodes: frame.nodes,
        adminNodes: frame.admin_nodes ?? [],
        clockSkewMs: frame.now - Date.now(),
      };
    case "overview":
      return {
        ...state,
        overviews: { ...state.overviews, [frame.node]: { at: frame.at, overview: frame.overview } },
      };
    case "message":
      return { ...state, messages: [...state.messages, frame.message].slice(-MAX_MESSAGES) };
    case "edit":
      return {
        ...state,
        messages: state.messages.map((message) =>
          message.id === frame.id
            ? { ...message, text: frame.text, ...(frame.buttons ? { buttons: frame.buttons } : {}) }
            : message,
        ),
      };
    case "toast":
      return { ...state, toasts: [...state.toasts, { id: ++toastIds, text: frame.text }].slice(-3) };
    case "untoast":
      return { ...state, toasts: state.toasts.filter((toast) => toast.id !== frame.id) };
  }
}
