// Whose work something is: the user, the chat it answers in, and that chat's platform. Tasks,
// plans, terminals, schedules, contexts and sandboxed commands all belong to one.

export interface ChatOwner {
  userId: string;
  chatId: string;
  platform: string;
}

/** The owner of a frame or row that names one in wire form (`user_id`, `chat_id`, `platform`). */
export const ownerOf = (wire: { user_id: string; chat_id: string; platform: string }): ChatOwner => ({
  userId: wire.user_id,
  chatId: wire.chat_id,
  platform: wire.platform,
});
