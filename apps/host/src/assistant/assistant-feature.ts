import type { ForwardFrame } from "@phonework/protocol";
import type { Clock, Logger, SqliteDatabase } from "@phonework/runtime";
import type { SessionManager } from "../coding/session-manager.ts";
import type { HostConfig } from "../config/host-config.ts";
import { featureTools, type HostFeature } from "../contracts/host-feature.ts";
import type { MessageHandler } from "../contracts/message-handler.ts";
import type { UsageMeter } from "../contracts/usage-meter.ts";
import type { Outbox } from "../delivery/outbox.ts";
import { createImageInput } from "../images/image-input.ts";
import { DEFAULT_MAX_PIXELS, DEFAULT_MAX_SIDE } from "../images/prepare-image.ts";
import { createVisionSupport } from "../images/vision-support.ts";
import type { ModelClient } from "../model/model-client.ts";
import type { EventRunner } from "../schedule/scheduler.ts";
import { afterLogWrites, afterLogWritesEach, type LogWrites } from "../workspace/after-log-writes.ts";
import type { ContextStore } from "../workspace/channel-context.ts";
import { createAssistant, HELP_COMMAND, isAssistant, STOP_COMMAND } from "./assistant.ts";
import { createEventRunner } from "./event-runner.ts";
import { buildSystemPrompt } from "./system-prompt.ts";

// The assistant ("mailboy"): every forwarded message goes to it. It is given every other
// feature's tools, commands and prompt sections; a handler handed in (tests, embedding) replaces it.

export interface AssistantFeatureDeps {
  config: HostConfig;
  displayName: string;
  model: ModelClient | undefined;
  /** Every other feature: what the assistant can do is what they offer. */
  features: readonly HostFeature[];
  /** Tools that are missing here, and why, for the assistant to say. */
  unavailable: Record<string, string>;
  sessions: SessionManager;
  plans: { stop(userId: string): Array<{ id: string }> };
  channels: { contexts: ContextStore; log: LogWrites };
  outbox: Outbox;
  /** state.db: where whether the model reads images is remembered. */
  db: SqliteDatabase;
  /** Replaces the assistant (tests, embedding). */
  handler?: MessageHandler | undefined;
  clock: Clock;
  logger: Logger;
  /** Counts each turn's model calls and holds the limits (usage/). */
  usage?: { meter: UsageMeter };
}

export interface AssistantFeature extends HostFeature {
  readonly handler: MessageHandler;
  /** How a workspace event wakes the assistant (a replaced one gets the event's text as is). */
  readonly eventRunner: EventRunner;
  /** The tools the model has now (none when a handler replaces the assistant). */
  toolNames(): string[];
  /** Every command, the assistant's own included, as `register` lists them. */
  commandList(): Array<{ usage: string; description: string }>;
}

export function createAssistantFeature(deps: AssistantFeatureDeps): AssistantFeature {
  const { config, features, clock } = deps;
  // Each tool waits for the chats' log lines before it runs (after-log-writes.ts), each wrapped
  // once, not at every call of `tools()` (each message's prompt and turn).
  const builtIn = afterLogWrites(featureTools(features), deps.channels.log);
  const live = afterLogWritesEach(deps.channels.log);
  /** The assistant's tools as they are now: custom tools load and reload while the host runs. */
  const tools = () => [...builtIn, ...live(features.flatMap((f) => f.liveTools?.() ?? []))];
  const commands = features.flatMap((f) => f.commands ?? []);
  const systemPrompt = (request: ForwardFrame) =>
    [
      buildSystemPrompt({
        nodeId: config.NODE_ID,
        displayName: deps.displayName,
        workingDir: config.WORKING_DIR,
        toolNames: tools().map((t) => t.name),
        webAvailable: !("web" in deps.unavailable),
        now: new Date(clock.now()),
        ...(request.nodes ? { peers: request.nodes } : {}),
      }),
      // What the workspace adds for this chat (memory, skills): each section a provider.
      ...features.flatMap((f) => f.promptSection?.(request) ?? []),
    ].join("\n\n");
  const handler =
    deps.handler ??
    createAssistant({
      nodeId: config.NODE_ID,
      model: deps.model,
      tools,
      commands,
      sessions: deps.sessions,
      plans: deps.plans,
      unavailableTools: deps.unavailable,
      systemPrompt,
      maxSteps: config.AGENT_MAX_STEPS,
      history: deps.channels.contexts,
      logWrites: deps.channels.log,
      sendFile: async (to, file) => void deps.outbox.sendFile(to, file),
      images: createImageInput(
        { maxSide: DEFAULT_MAX_SIDE, maxBytes: config.IMAGE_MAX_BYTES, maxPixels: DEFAULT_MAX_PIXELS },
        createVisionSupport({
          mode: config.OPENAI_VISION,
          model: deps.model,
          baseUrl: config.OPENAI_BASE_URL ?? "https://api.openai.com/v1",
          modelName: config.OPENAI_MODEL,
          db: deps.db,
          now: () => clock.now(),
          logger: deps.logger.child({ component: "vision" }),
        }),
      ),
      clock,
      logger: deps.logger,
      ...(deps.usage ? { meter: deps.usage.meter } : {}),
      footer: config.USAGE_FOOTER === "on",
    });
  return {
    name: "assistant",
    handler,
    // Events wake the assistant; a handler handed in gets an event's text as is.
    eventRunner: isAssistant(handler) ? createEventRunner(handler) : async (job) => job.text,
    capabilities: () => (deps.model ? ["assistant"] : []),
    toolNames: () => (deps.handler ? [] : tools().map((tool) => tool.name)),
    commandList: () => [
      ...commands.map(({ usage, description }) => ({ usage, description })),
      STOP_COMMAND,
      HELP_COMMAND,
    ],
  };
}
