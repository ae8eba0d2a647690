import type { BotCommand } from "grammy/types";
import { z } from "zod";
import { badRequest } from "../api/errors.ts";
import { bool, int, json, parseParams } from "../api/params.ts";
import type { MethodHandler } from "./method.ts";

// getMe, the command lists (per scope and language) and answerCallbackQuery.

const command = z.object({ command: z.string(), description: z.string() });
const scoped = {
  scope: json(z.looseObject({ type: z.string() })).optional(),
  language_code: z.string().optional(),
};
const setCommandsParams = z.object({ ...scoped, commands: json(z.array(command)) });
const scopeParams = z.object(scoped);
const answerParams = z.object({
  callback_query_id: z.string(),
  text: z.string().optional(),
  show_alert: bool.optional(),
  url: z.string().optional(),
  cache_time: int.optional(),
});

const getMe: MethodHandler = (state) => state.bot;

function checkCommands(commands: BotCommand[]): void {
  if (commands.length > 100) throw badRequest("BOT_COMMANDS_TOO_MUCH");
  for (const { command, description } of commands) {
    if (!/^[a-z0-9_]{1,32}$/.test(command)) throw badRequest("BOT_COMMAND_INVALID");
    if (description.length < 1 || description.length > 256)
      throw badRequest("BOT_COMMAND_DESCRIPTION_INVALID");
  }
}

const setMyCommands: MethodHandler = (state, raw) => {
  const params = parseParams(setCommandsParams, raw);
  checkCommands(params.commands);
  state.commands.set(params.commands, params.scope, params.language_code);
  return true;
};

const getMyCommands: MethodHandler = (state, raw) => {
  const params = parseParams(scopeParams, raw);
  return state.commands.get(params.scope, params.language_code);
};

const deleteMyCommands: MethodHandler = (state, raw) => {
  const params = parseParams(scopeParams, raw);
  state.commands.delete(params.scope, params.language_code);
  return true;
};

const answerCallbackQuery: MethodHandler = (state, raw) => {
  const params = parseParams(answerParams, raw);
  if (params.text !== undefined && params.text.length > 200) throw badRequest("MESSAGE_TOO_LONG");
  state.callbacks.answer({ ...params, at: state.now() });
  return true;
};

export const botMethods = { getMe, setMyCommands, getMyCommands, deleteMyCommands, answerCallbackQuery };
