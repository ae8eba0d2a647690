import { type HostBoundFrame, joinFrameHandlers } from "@phonework/protocol";
import { createAssistantFeature } from "./assistant/assistant-feature.ts";
import { createCodingFeature } from "./coding/coding-feature.ts";
import type { SessionManager } from "./coding/session-manager.ts";
import type { HostConfig } from "./config/host-config.ts";
import { featureTools } from "./contracts/host-feature.ts";
import { createCustomToolsFeature } from "./custom-tools/custom-tools-feature.ts";
import type { Outbox } from "./delivery/outbox.ts";
import { createFilesFeature } from "./files/files-feature.ts";
import { openHostBase } from "./host-base.ts";
import type { HostDeps } from "./host-deps.ts";
import { type HostLifecycle, hostLifecycle } from "./host-lifecycle.ts";
import { registrationOf } from "./link/registration.ts";
import type { RouterLink } from "./link/router-link.ts";
import { createMemoryFeature } from "./memory/memory-feature.ts";
import { createOverviewFeature } from "./overview/overview-feature.ts";
import type { RequestRunner } from "./requests/request-runner.ts";
import { createRequestsFeature } from "./requests/requests-feature.ts";
import type { JobStore } from "./schedule/job-store.ts";
import { createScheduleFeature } from "./schedule/schedule-feature.ts";
import type { Scheduler } from "./schedule/scheduler.ts";
import { createShellFeature } from "./shell/shell-feature.ts";
import { createSkillsFeature } from "./skills/skills-feature.ts";
import type { TaskRunner } from "./tasks/task-runner.ts";
import { createTasksFeature, openTaskRunner } from "./tasks/tasks-feature.ts";
import { createTerminals, type Terminals } from "./terminals/create-terminals.ts";
import { createUsageFeature } from "./usage/usage-feature.ts";
import { createWebFeature } from "./web/web-feature.ts";
import { createWorkers, type Workers } from "./workers/create-workers.ts";
import { afterLogWrites } from "./workspace/after-log-writes.ts";
import { createWorkspaceFeature } from "./workspace/workspace-feature.ts";

// Composition root of a host: opens the base, installs the features in order and hands the link
// one frame table. The order of `features` is the order they start in (and stop in reverse), and
// the order their capabilities, tools and commands are listed in.

export type { HostDeps } from "./host-deps.ts";

export interface Host extends HostLifecycle {
  readonly link: RouterLink;
  readonly tasks: TaskRunner;
  readonly sessions: SessionManager;
  /** The router's forwarded requests running here (a standalone cancels them before its router closes). */
  readonly requests: RequestRunner;
  readonly outbox: Outbox;
  readonly scheduler: Scheduler;
  readonly jobs: JobStore;
  readonly workers: Workers;
  readonly terminals: Terminals;
}

export function createHost(config: HostConfig, deps: HostDeps): Host {
  const base = openHostBase(config, deps);
  const tasks = openTaskRunner(base);
  const coding = createCodingFeature({ ...base, tasks, agents: deps.agents });
  const schedule = createScheduleFeature({ ...base, coding: coding.turns });
  const web = createWebFeature(base);
  // What a worker of a plan may be given, as much as the assistant: the machine's tools.
  const machine = [
    createShellFeature({ ...base, tasks }),
    createFilesFeature(base),
    createTasksFeature({ ...base, tasks, coding: coding.turns }),
    coding,
    schedule,
    web,
  ];
  // Each waits for the chats' log lines before it runs, as the assistant's tools do.
  const tools = afterLogWrites(
    machine.flatMap((feature) => feature.tools ?? []),
    base.channels.log,
  );
  const workers = createWorkers({ ...base, tools });
  const usage = createUsageFeature(base.usage, base.owners);
  const terminals = createTerminals({ ...base, loadPty: deps.loadPty, chatWaits: deps.chatTerminalWaits });
  const chat = [
    createSkillsFeature(base),
    createMemoryFeature(base),
    createWorkspaceFeature(base),
    terminals,
    usage,
  ];
  const builtIn = featureTools([...machine, workers, ...chat]);
  const customTools = createCustomToolsFeature({ ...base, builtIn, enabled: !deps.handler });
  const assistant = createAssistantFeature({
    ...base,
    features: [...machine, workers, ...chat, customTools],
    unavailable: web.unavailable,
    handler: deps.handler,
    sessions: coding.sessions,
    plans: workers.runner,
  });
  schedule.wakeWith(assistant.eventRunner);
  const requests = createRequestsFeature({ ...base, handler: assistant.handler });
  const overview = createOverviewFeature({
    overview: base.overview,
    sources: { ...coding, tasks, plans: workers.ledger, schedule: schedule.schedules, usage: usage.overview },
  });
  const features = [...machine, assistant, workers, ...chat, customTools, overview, requests];
  const lifecycle = hostLifecycle(base, features, {
    registration: registrationOf({
      ...base,
      capabilities: () => features.flatMap((feature) => feature.capabilities?.() ?? []),
      sessions: () => coding.sessions.summaries(),
      commands: () => assistant.commandList(),
      tools: () => assistant.toolNames(),
    }),
    frames: joinFrameHandlers<HostBoundFrame>()(
      requests.frames,
      base.outbox.frames,
      workers.frames,
      terminals.frames,
      overview.frames,
    ),
    pushError: (frame) => base.outbox.pushFailed(frame),
  });
  const { link, outbox } = base;
  const { scheduler, jobs } = schedule;
  return {
    ...lifecycle,
    link,
    tasks,
    sessions: coding.sessions,
    requests: requests.runner,
    outbox,
    scheduler,
    jobs,
    workers,
    terminals,
  };
}
