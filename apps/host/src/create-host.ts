import { join } from "node:path";
import {
  type Button,
  CURRENT_PROTOCOL_VERSION,
  type ForwardFrame,
  type HostFrame,
  OVERVIEW_CAPABILITY,
  WORKERS_CAPABILITY,
} from "@phonework/protocol";
import { type Clock, type Logger, systemClock } from "@phonework/runtime";
import { createAssistant, HELP_COMMAND, isAssistant, STOP_COMMAND } from "./assistant/assistant.ts";
import { buildSystemPrompt } from "./assistant/system-prompt.ts";
import { createAgentFactory } from "./coding/agent-factory.ts";
import { ApprovalBroker } from "./coding/approval-broker.ts";
import type { CodingAgent } from "./coding/coding-agent.ts";
import { createCodingSessionTool } from "./coding/coding-session-tool.ts";
import { sessionCommands } from "./coding/session-commands.ts";
import { SessionManager } from "./coding/session-manager.ts";
import { type AgentName, SessionStore } from "./coding/session-store.ts";
import { type ThreadCommandDeps, threadCommands, useThread } from "./coding/thread-commands.ts";
import type { HostConfig } from "./config/host-config.ts";
import type { MessageHandler } from "./contracts/message-handler.ts";
import type { Tool } from "./contracts/tool.ts";
import { CustomTools } from "./custom-tools/custom-tools.ts";
import { skillsCommand, toolsCommand } from "./custom-tools/workspace-tool-commands.ts";
import { createFileOpsTool } from "./files/file-ops.ts";
import type { NodeIdentity } from "./identity/node-identity.ts";
import { NodeOwners } from "./link/node-owners.ts";
import { Outbox, type OutboxItem } from "./link/outbox.ts";
import { RequestRunner } from "./link/request-runner.ts";
import { RouterLink, type RouterTls } from "./link/router-link.ts";
import { servesUserRule } from "./link/serves-user.ts";
import { memoryCommands } from "./memory/memory-commands.ts";
import { MemoryFiles } from "./memory/memory-files.ts";
import { memoryPromptSection } from "./memory/memory-prompt.ts";
import { createMemoryTool } from "./memory/memory-tool.ts";
import { createOpenAIModelClient, type ModelClient } from "./model/model-client.ts";
import { findExecutable } from "./os/find-executable.ts";
import { createOverview } from "./overview/create-overview.ts";
import { openSandbox } from "./sandbox/open-sandbox.ts";
import { describeSandbox } from "./sandbox/shell-sandbox.ts";
import { createCheckRunner } from "./schedule/check-runner.ts";
import { createEventRunner } from "./schedule/event-runner.ts";
import { EventsDirectory } from "./schedule/events-directory.ts";
import { JobStore } from "./schedule/job-store.ts";
import { scheduleCommands } from "./schedule/schedule-commands.ts";
import { ScheduleService } from "./schedule/schedule-service.ts";
import { createScheduleTools } from "./schedule/schedule-tools.ts";
import { type EventRunner, Scheduler } from "./schedule/scheduler.ts";
import { createRunShellTool } from "./shell/run-shell.ts";
import { SkillLibrary } from "./skills/skill-library.ts";
import { createSkillTool, skillsPromptSection } from "./skills/skill-tool.ts";
import { openHostDatabase } from "./storage/host-db.ts";
import { createBackgroundTools } from "./tasks/background-tools.ts";
import { taskLine } from "./tasks/format-tasks.ts";
import { basicCommands } from "./tasks/task-commands.ts";
import { type TaskOwner, TaskRunner } from "./tasks/task-runner.ts";
import { TaskStore } from "./tasks/task-store.ts";
import type { ChatTerminalWaits } from "./terminals/chat-terminals.ts";
import { createTerminals, isTerminalFrame, type Terminals } from "./terminals/create-terminals.ts";
import type { LoadPty } from "./terminals/pty-module.ts";
import { terminalCommands } from "./terminals/terminal-commands.ts";
import { createMcpConnection } from "./web/mcp-client.ts";
import { createWebTool } from "./web/web-tool.ts";
import { createWorkers, type Workers } from "./workers/create-workers.ts";
import { withChannelIntake } from "./workspace/channel-intake.ts";
import { contextCommands } from "./workspace/context-commands.ts";
import { createInbox } from "./workspace/inbox.ts";
import { openChannels } from "./workspace/open-channels.ts";
import { channelOf, WorkspaceLayout } from "./workspace/workspace-layout.ts";
import { workspacePromptSection } from "./workspace/workspace-prompt.ts";

// Composition root of a host: the link to the router, the assistant and its tools.

export interface HostDeps {
  logger: Logger;
  /** Replaces the assistant entirely (tests, embedding). */
  handler?: MessageHandler;
  /** The assistant's model; by default built from OPENAI_* when OPENAI_API_KEY is set. */
  model?: ModelClient;
  clock?: Clock;
  /** Coding agents; by default the real `claude` and `codex` CLIs. */
  agents?: (name: AgentName, approvals: ApprovalBroker) => CodingAgent;
  /** Environment for the coding agents' processes (default: this process's). */
  env?: NodeJS.ProcessEnv;
  random?: () => number;
  /** The node's key (see resolveIdentity); without it the host presents ROUTER_SECRET. */
  identity?: NodeIdentity;
  /** How to trust a self-signed router (ROUTER_CA_FILE, ROUTER_CERT_SHA256). */
  tls?: RouterTls;
  /** The router refused this node's key or join code. */
  onRefused?: (reason: string) => void;
  /** Loads node-pty for terminals (tests: one that fails, as on a machine where it did not build). */
  loadPty?: LoadPty;
  /** How long /term and /keys wait for a program's screen (tests: less for programs that print nothing). */
  chatTerminalWaits?: ChatTerminalWaits;
}

export interface Host {
  readonly link: RouterLink;
  readonly tasks: TaskRunner;
  readonly sessions: SessionManager;
  readonly outbox: Outbox;
  readonly scheduler: Scheduler;
  readonly jobs: JobStore;
  readonly workers: Workers;
  readonly terminals: Terminals;
  start(): void;
  /** Resolves once registered with the router (the first time, or again after a reconnect). */
  ready(): Promise<void>;
  /** Pushes a frame to the router: items go through the durable outbox; a sessions_update is sent live. */
  push(frame: OutboxItem | Extract<HostFrame, { type: "sessions_update" }>): void;
  stop(): Promise<void>;
}

function buildModel(config: HostConfig): ModelClient | undefined {
  if (!config.OPENAI_API_KEY) return undefined;
  return createOpenAIModelClient({
    apiKey: config.OPENAI_API_KEY,
    model: config.OPENAI_MODEL,
    maxRetries: config.OPENAI_MAX_RETRIES,
    ...(config.OPENAI_BASE_URL ? { baseURL: config.OPENAI_BASE_URL } : {}),
  });
}

export function createHost(config: HostConfig, deps: HostDeps): Host {
  const logger = deps.logger.child({ component: "host", nodeId: config.NODE_ID });
  const displayName = config.DISPLAY_NAME ?? config.NODE_ID;
  const clock = deps.clock ?? systemClock;
  const stateDir = join(config.DATA_DIR, "host", config.NODE_ID);
  const workspace = new WorkspaceLayout(config.WORKSPACE_DIR ?? join(stateDir, "workspace"));
  // Decided before anything is opened: SANDBOX=on where it cannot work stops the start here.
  // channelAccess is only asked when a command starts.
  const sandbox = openSandbox(config, {
    env: deps.env ?? process.env,
    workspace,
    channelsOf: (userId) => channelAccess.channelsOf(userId),
    logger,
  });
  /** Parts of the system prompt the workspace adds for a request's chat (memory, skills). */
  const promptSections: Array<(request: ForwardFrame) => string | undefined> = [];
  const db = openHostDatabase(join(stateDir, "state.db"));
  const outbox = new Outbox(db, logger.child({ component: "outbox" }), () => clock.now());
  // Who may read which chat (file tools, sandbox), each chat's log and its context.
  const channels = openChannels({
    layout: workspace,
    db,
    outbox,
    nodeId: config.NODE_ID,
    displayName,
    maxTokens: config.HISTORY_MAX_TOKENS,
    modelId: config.OPENAI_MODEL,
    legacyHistoryDir: join(stateDir, "history"),
    now: () => clock.now(),
    logger,
  });
  const { access: channelAccess, contexts: history } = channels;
  const servesUser = servesUserRule(config.SERVES_USERS);
  // Who owns this node, as the router says at each registration: only they change host-wide state.
  const owners = new NodeOwners();
  // The console's view of each user's work here: told what changes, asked by the router.
  const overview = createOverview({
    send: (frame) => link.send(frame),
    servesUser,
    now: () => clock.now(),
    logger,
  });
  // Whatever the host tells a user (an answer, a reminder, a task's end) may change what they see.
  outbox.onStored((frame) => "user_id" in frame && frame.user_id && overview.changed(frame.user_id));
  // Live state, not an item to deliver: a reconnect re-sends it in `register` anyway.
  const sendSessions = () => link.send({ type: "sessions_update", sessions: sessions.summaries() });

  const tasks = new TaskRunner({
    store: TaskStore.open(db, clock.now(), join(stateDir, "tasks.json"), logger),
    timeoutMs: config.BACKGROUND_TIMEOUT_S * 1000,
    clock,
    logger,
    // A task's end commits with the outbox item that announces it.
    transaction: (fn) => db.transaction(fn)(),
    sandbox,
    onFinished: (task, fullOutput) => {
      const owner = { userId: task.user_id, chatId: task.chat_id, platform: task.platform };
      // A coding turn's answer is delivered whole (code blocks intact), not as a truncated summary.
      if (task.kind === "session") notify(owner, `${taskLine(task, clock.now())}\n\n${fullOutput}`);
      else
        outbox.enqueue({
          type: "task_complete",
          task_id: task.id,
          user_id: task.user_id,
          platform: task.platform,
          chat_id: task.chat_id,
          ok: task.status === "done",
          description: task.description,
          output: task.output,
          elapsed_ms: (task.finished_at ?? clock.now()) - task.started_at,
        });
    },
  });
  /** A message of the host's own; `editKey` keeps one message up to date (a plan's progress). */
  const notify = (owner: TaskOwner, text: string, buttons?: Button[][], editKey?: string) =>
    outbox.enqueue({
      type: "notify",
      user_id: owner.userId,
      platform: owner.platform,
      chat_id: owner.chatId,
      text,
      ...(buttons?.length ? { buttons } : {}),
      ...(editKey ? { edit_key: editKey } : {}),
    });

  const approvals = new ApprovalBroker({
    timeoutMs: config.APPROVAL_TIMEOUT_S * 1000,
    notify,
    now: () => clock.now(),
    onChange: overview.changed,
  });
  // The real CLIs must be installed; agents handed in (tests, embedding) are there by definition.
  const agentEnv = deps.env ?? process.env;
  const missingAgent = (name: AgentName): string | undefined => {
    if (deps.agents) return undefined;
    const [bin, key, pkg] =
      name === "claude"
        ? [config.CLAUDE_BIN, "CLAUDE_BIN", "@anthropic-ai/claude-code"]
        : [config.CODEX_BIN, "CODEX_BIN", "@openai/codex"];
    return findExecutable(bin, agentEnv.PATH)
      ? undefined
      : `\`${bin}\` not found on this host: install it (npm i -g ${pkg}) or set ${key}`;
  };
  const agentFactory = deps.agents ?? createAgentFactory(config, { env: agentEnv, logger });
  const agents = new Map<AgentName, CodingAgent>();
  const agentFor = (name: AgentName) => {
    let agent = agents.get(name);
    if (!agent) {
      agent = agentFactory(name, approvals);
      agents.set(name, agent);
    }
    return agent;
  };
  const sessions = new SessionManager({
    store: SessionStore.open(db, join(stateDir, "sessions.json"), logger),
    agents: agentFor,
    workingDir: config.WORKING_DIR,
    maxPending: config.MAX_PENDING,
    longTurnMs: config.LONG_TURN_S * 1000,
    tasks,
    clock,
    logger,
    onChange: () => sendSessions(),
    missingAgent,
    observer: overview.observer,
  });

  const web = config.METASO_API_KEY
    ? createMcpConnection({ url: config.METASO_MCP_URL, apiKey: config.METASO_API_KEY, logger })
    : undefined;
  const jobs = new JobStore(db, () => clock.now());
  const scheduleLimits = { minIntervalS: config.SCHEDULE_MIN_INTERVAL_S, defaultTimeZone: config.TIME_ZONE };
  const schedules = new ScheduleService(
    jobs,
    scheduleLimits,
    () => clock.now(),
    (fn) => db.transaction(fn)(),
    (job) => events.cancelled(job),
  );
  const scheduler = new Scheduler({
    db,
    store: jobs,
    outbox,
    runCheck: createCheckRunner({
      workingDir: config.WORKING_DIR,
      timeoutMs: config.BACKGROUND_TIMEOUT_S * 1000,
      sessions,
      sandbox,
    }),
    runEvent: (job, signal) => runEvent(job, signal),
    remember: (owner, text) => history.append(owner, [{ role: "assistant", content: text }]),
    now: () => clock.now(),
    logger: logger.child({ component: "scheduler" }),
    lateAfterMs: config.SCHEDULE_LATE_AFTER_S * 1000,
  });
  outbox.onSettled((result) => scheduler.handleDelivery(result));
  const events = new EventsDirectory({
    dir: workspace.eventsDir,
    store: jobs,
    transaction: (fn) => db.transaction(fn)(),
    limits: scheduleLimits,
    now: () => clock.now(),
    logger: logger.child({ component: "events" }),
    onStored: (job) => {
      void scheduler.sweep();
      overview.changed(job.user_id);
    },
  });

  const baseTools: Tool[] = [
    createRunShellTool(config.WORKING_DIR, sandbox),
    createFileOpsTool({
      workingDir: config.WORKING_DIR,
      maxFileBytes: config.MAX_FILE_BYTES,
      workspace: {
        root: workspace.root,
        hiddenFor: (ctx) =>
          channelAccess.hiddenDirs(ctx.userId, channelOf(ctx.platform, ctx.chatId), ctx.isolated),
      },
    }),
    ...createBackgroundTools(tasks, config.WORKING_DIR, clock, sessions),
    createCodingSessionTool(sessions, config.DEFAULT_AGENT),
    ...createScheduleTools(schedules),
    ...(web ? [createWebTool(web)] : []),
  ];
  const model = deps.model ?? buildModel(config);
  const workers = createWorkers({
    config,
    displayName,
    db,
    model,
    tools: baseTools,
    outbox,
    notify: (owner, text, editKey) => notify(owner, text, undefined, editKey),
    send: (frame) => link.send(frame),
    remember: (owner, text) => history.append(owner, [{ role: "assistant", content: text }]),
    now: () => clock.now(),
    logger,
  });
  const skills = new SkillLibrary(workspace, logger.child({ component: "skills" }));
  const memory = new MemoryFiles(workspace, join(stateDir, "user-memory"));
  promptSections.push(workspacePromptSection(workspace));
  promptSections.push(memoryPromptSection(memory, owners, config.MEMORY_MAX_TOKENS));
  promptSections.push(skillsPromptSection(skills));
  // The assistant's own tools, not workers' (those get baseTools): memory is the chat's, not a subtask's.
  const builtInTools = [
    ...baseTools,
    ...workers.tools,
    createSkillTool(skills),
    createMemoryTool(memory, owners),
  ];
  const customTools = new CustomTools({
    dir: workspace.toolsDir,
    // "web" too: it is built in, even where it is not configured.
    reserved: [...builtInTools.map((tool) => tool.name), "web"],
    timeoutMs: config.CUSTOM_TOOL_TIMEOUT_S * 1000,
    workspace: workspace.root,
    logger: logger.child({ component: "custom-tools" }),
  });
  /** The assistant's tools as they are now: custom tools load and reload while the host runs. */
  const tools = () => [...builtInTools, ...customTools.tools()];
  // Terminals: /term from chat, and the router's terminal frames (sent live, beside the outbox).
  const terminals = createTerminals({
    config,
    env: agentEnv,
    send: (frame) => link.send(frame),
    backlog: () => link.bufferedAmount(),
    // Inside the sandbox when it is on, like every other command run for a user.
    wrap: (file, args, owner) => {
      const [wrapped = file, ...rest] = sandbox.forTerminal(owner)([file, ...args], config.WORKING_DIR);
      return { file: wrapped, args: rest };
    },
    ...(deps.loadPty ? { loadPty: deps.loadPty } : {}),
    ...(deps.chatTerminalWaits ? { chatWaits: deps.chatTerminalWaits } : {}),
    logger,
  });
  // Worked out at each registration: a CLI installed while the host runs shows up on reconnect.
  const capabilities = () => [
    "shell",
    "file_ops",
    "background",
    ...(missingAgent("claude") ? [] : ["claude_code"]),
    ...(missingAgent("codex") ? [] : ["codex"]),
    ...(web ? ["web"] : []),
    ...(model ? ["assistant"] : []),
    ...(workers.capable ? [WORKERS_CAPABILITY] : []),
    ...terminals.capabilities(),
    OVERVIEW_CAPABILITY,
  ];
  const threads: ThreadCommandDeps = {
    sessions,
    codexThreads: () => {
      const missing = missingAgent("codex");
      const threads = missing ? undefined : agentFor("codex").threads;
      return threads
        ? { threads }
        : { unavailable: missing ?? "this node's Codex agent cannot list its threads" };
    },
    workingDir: config.WORKING_DIR,
    clock,
  };
  const commands = [
    ...basicCommands({
      workingDir: config.WORKING_DIR,
      tasks,
      clock,
      longTurnMs: config.LONG_TURN_S * 1000,
      timeoutMs: config.BACKGROUND_TIMEOUT_S * 1000,
      sandbox,
    }),
    ...sessionCommands({
      sessions,
      approvals,
      defaultAgent: config.DEFAULT_AGENT,
      clock,
      useThread: (owner, id) => useThread(threads, owner, id),
    }),
    ...threadCommands(threads),
    ...scheduleCommands(schedules),
    ...workers.commands,
    ...memoryCommands(memory, owners),
    ...contextCommands(history),
    ...terminalCommands(terminals.chat),
    skillsCommand(skills),
    toolsCommand(builtInTools, customTools),
  ];

  const handler =
    deps.handler ??
    createAssistant({
      nodeId: config.NODE_ID,
      model,
      tools,
      commands,
      sessions,
      plans: workers.runner,
      unavailableTools: web
        ? {}
        : { web: "web search is not configured on this node (set METASO_API_KEY on the host)" },
      systemPrompt: (request) =>
        [
          buildSystemPrompt({
            nodeId: config.NODE_ID,
            displayName: displayName,
            workingDir: config.WORKING_DIR,
            toolNames: tools().map((t) => t.name),
            webAvailable: Boolean(web),
            now: new Date(clock.now()),
            ...(request.nodes ? { peers: request.nodes } : {}),
          }),
          // What the workspace adds for this chat (memory, skills): each section a provider.
          ...promptSections.flatMap((section) => section(request) ?? []),
        ].join("\n\n"),
      maxSteps: config.AGENT_MAX_STEPS,
      history,
      sendFile: async (to, file) =>
        void outbox.enqueue({
          type: "send_file",
          user_id: to.userId,
          platform: to.platform,
          chat_id: to.chatId,
          name: file.name,
          ...(file.mimeType ? { mime_type: file.mimeType } : {}),
          data_base64: file.data.toString("base64"),
        }),
      clock,
      logger,
    });

  // Events wake the assistant; a handler handed in (tests, embedding) gets an event's text as is.
  const runEvent: EventRunner = isAssistant(handler) ? createEventRunner(handler) : async (job) => job.text;

  const inbox = createInbox({
    maxBytes: config.MAX_ATTACHMENT_BYTES,
    logger: logger.child({ component: "inbox" }),
  });

  // What a user's overview is read from: each store, asked by user.
  const overviewSources = {
    sessions,
    activity: overview.activity,
    tasks,
    plans: workers.ledger,
    schedule: schedules,
    approvals,
  };

  let runner: RequestRunner | undefined;
  const link = new RouterLink({
    url: config.ROUTER_URL,
    nodeId: config.NODE_ID,
    secret: config.ROUTER_SECRET,
    identity: deps.identity,
    insecure: config.ALLOW_INSECURE_TRANSPORT && config.ROUTER_URL.startsWith("ws:"),
    ...(deps.tls ? { tls: deps.tls } : {}),
    registration: () => ({
      type: "register",
      node_id: config.NODE_ID,
      display_name: displayName,
      serves_users: config.SERVES_USERS,
      working_dir: config.WORKING_DIR,
      capabilities: capabilities(),
      protocol_versions: [CURRENT_PROTOCOL_VERSION],
      sessions: sessions.summaries(),
      commands: [
        ...commands.map(({ usage, description }) => ({ usage, description })),
        STOP_COMMAND,
        HELP_COMMAND,
      ],
      tools: deps.handler ? [] : tools().map((tool) => tool.name),
    }),
    maxPayloadBytes: config.MAX_PAYLOAD_BYTES,
    backoff: { baseMs: 500, maxMs: config.RECONNECT_MAX_DELAY_S * 1000 },
    logger: logger.child({ component: "link" }),
    onWork: (frame) => {
      if (frame.type === "forward") runner?.run(frame);
      else if (frame.type === "cancel") runner?.cancel(frame.id, frame.reason);
      else if (frame.type === "push_ack") outbox.acknowledge(frame);
      else if (isTerminalFrame(frame)) terminals.link.handle(frame);
      else if (frame.type === "overview_request") overview.answer(frame, overviewSources);
      else workers.handle(frame);
    },
    // Said each time the host registers: whether commands run sandboxed, and if not, why.
    registeredFields: () => ({ sandbox: describeSandbox(sandbox.status) }),
    onRegistered: (frame) => {
      owners.update(frame.owners);
      // The join code did its work: keep the key, and never present the code again.
      if (!deps.identity?.joinCode) return;
      deps.identity.save();
      deps.identity.joinCode = undefined;
      logger.info("paired with the router; the node key is saved in DATA_DIR");
    },
    onPushError: (frame) => {
      // Over the push rate, or a worker result whose master is offline: kept, and sent again later.
      if ((frame.code === "RATE_LIMITED" || frame.code === "NODE_OFFLINE") && frame.delivery_id)
        outbox.retryLater(frame.delivery_id, Math.max(1, frame.retry_after_s ?? 5) * 1000);
      else logger.warn({ code: frame.code, deliveryId: frame.delivery_id }, frame.message);
    },
    ...(deps.onRefused ? { onRefused: deps.onRefused } : {}),
    ...(deps.random ? { random: deps.random } : {}),
  });
  runner = new RequestRunner(
    withChannelIntake(handler, { layout: workspace, inbox, log: channels.log, access: channelAccess }),
    (frame) => link.send(frame),
    (answer, deliveryId) => outbox.enqueue(answer, deliveryId),
    logger,
    servesUser,
  );
  outbox.attach(link);
  // A console's terminals end with the link: nobody is left to see them.
  link.onStateChange((state) => state === "waiting" && terminals.link.disconnected());
  link.onStateChange((state) => overview.linkUp(state === "registered"));

  return {
    link,
    tasks,
    sessions,
    outbox,
    scheduler,
    jobs,
    workers,
    terminals,
    start: () => {
      workers.start();
      // node-pty loads beside the first connection: the router hears of the capability once registered.
      terminals.start(async () => {
        await link.registered();
        link.send({ type: "sessions_update", sessions: sessions.summaries(), capabilities: capabilities() });
      });
      if (!deps.handler) customTools.start();
      link.start();
      events.start(config.SCHEDULER_TICK_S * 1000);
      scheduler.start(config.SCHEDULER_TICK_S * 1000);
    },
    ready: async () => {
      await link.registered();
    },
    push: (frame) => {
      if (frame.type === "sessions_update") link.send(frame);
      else outbox.enqueue(frame);
    },
    async stop() {
      events.close();
      overview.close();
      await scheduler.stop();
      runner?.cancelAll("host stopping");
      await workers.close();
      await customTools.close();
      await sessions.stopAll();
      await tasks.stopAll();
      await Promise.all([...agents.values()].map((agent) => agent.close()));
      await terminals.stop();
      await link.stop();
      await web?.close();
      outbox.close();
      db.close();
    },
  };
}
