import { mkdirSync, statSync } from "node:fs";
import { homedir, hostname } from "node:os";
import { join } from "node:path";
import {
  commandField,
  isLoopbackHost,
  logFormat,
  logLevel,
  openAiFields,
  pathField,
  positiveInt,
  seconds,
  stringList,
} from "@phonework/runtime";
import { z } from "zod";
import { sandboxFields } from "./sandbox-config.ts";
import { isTimeZone } from "./time-zone.ts";
import { usageFields } from "./usage-config.ts";

const isDirectory = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/** The machine's name, reduced to the characters a node id may hold. */
export const defaultNodeId = () =>
  hostname()
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .slice(0, 64) || "host";

/** The host's keys; `HostConfigSchema` adds the derived defaults. */
export const HostConfigFields = z.object({
  ROUTER_URL: z
    .string()
    .regex(/^wss?:\/\//, "must be a ws:// or wss:// URL, e.g. wss://router.example.com/ws/node")
    .default("ws://127.0.0.1:8000/ws/node"),
  /** Only for a router on this machine (standalone, tests); a remote router pairs hosts with keys. */
  ROUTER_SECRET: z.string().min(1).optional(),
  /** A one-time code from the router's /pair (also `--join <code>`): pairs this host's new key. */
  JOIN_CODE: z.string().min(1).optional(),
  /** Permit ws:// (plaintext) to a router that is not on this machine. Logged at every connect. */
  ALLOW_INSECURE_TRANSPORT: z
    .enum(["0", "1", "true", "false"], { error: "must be 1 or 0" })
    .default("0")
    .transform((value) => value === "1" || value === "true"),
  /** CA certificate (PEM) that signed a self-signed router's certificate. */
  ROUTER_CA_FILE: pathField().optional(),
  /** Or pin the router's certificate by its SHA-256 fingerprint (hex, colons optional). */
  ROUTER_CERT_SHA256: z
    .string()
    .transform((value) => value.replaceAll(":", "").toLowerCase())
    .pipe(z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 fingerprint (64 hex digits)"))
    .optional(),
  NODE_ID: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, "may only contain letters, digits, '.', '_' and '-' (at most 64)")
    .optional(),
  DISPLAY_NAME: z.string().min(1).optional(),
  /** Users this host serves; empty serves every user the router lets in. */
  SERVES_USERS: stringList(),
  WORKING_DIR: pathField()
    // The expanded, absolute path: what was checked, which may differ from what was typed.
    .refine(isDirectory, { error: (issue) => `${issue.input} is not an existing directory` })
    // Not the current directory (under a service manager or `pnpm host` that is `/` or the
    // PhoneWork repository) and not the whole home directory (every file of the user's, writable
    // by every command): a folder of its own, made at the first start (ensureWorkingDir). Set it
    // to your projects folder.
    .default(() => join(homedir(), "phonework")),
  DATA_DIR: pathField().default(() => join(homedir(), ".phonework")),
  RECONNECT_MAX_DELAY_S: seconds(30),
  MAX_PAYLOAD_BYTES: positiveInt(16 * 1024 * 1024),
  LOG_LEVEL: logLevel(),
  LOG_FORMAT: logFormat(),

  // The assistant's model: any OpenAI-compatible endpoint (OpenAI, GLM, DeepSeek, a local server…).
  ...openAiFields,
  /** Retries of a 429 or 5xx answer from the model provider (with backoff, honouring Retry-After). */
  OPENAI_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(3),
  /** Whether the model is sent the images users send: auto asks it once (and remembers). */
  OPENAI_VISION: z.enum(["auto", "on", "off"], { error: "must be auto, on or off" }).default("auto"),
  /**
   * Largest image sent to a model, after scaling to 1,568 px: 3.75 MB, whose base64 (5 MB) is what
   * Anthropic's API takes per image (Claude Code sends it as is), and under OpenAI's 20 MB.
   */
  IMAGE_MAX_BYTES: positiveInt(3_750_000),
  /** Tool-calling steps in one turn before the assistant stops and says so. */
  AGENT_MAX_STEPS: positiveInt(12),
  /** Conversation history kept per user, in estimated tokens; older turns are dropped first. */
  HISTORY_MAX_TOKENS: positiveInt(24_000),
  /** Channel-log file writes (a chat's lines of one turn) within a second that move the log to a thread (0: always). */
  CHANNEL_LOG_THREAD_AT: z.coerce.number().int().min(0, "must be 0 or more").default(50),
  /** Largest file `file_ops send` delivers (it travels base64-encoded in one frame). */
  MAX_FILE_BYTES: positiveInt(10 * 1024 * 1024),
  /** Bytes of files one chat message may bring (saved in WORKING_DIR/inbox/); the rest are skipped. */
  MAX_ATTACHMENT_BYTES: positiveInt(20 * 1024 * 1024),
  /** Hard limit for one background task. */
  BACKGROUND_TIMEOUT_S: seconds(3600),
  /** Web search through the Metaso MCP server; the web tool is offered only with a key. */
  METASO_API_KEY: z.string().min(1).optional(),
  METASO_MCP_URL: z.string().url("must be a URL").default("https://metaso.cn/api/mcp"),

  // Coding sessions.
  DEFAULT_AGENT: z.enum(["claude", "codex"], { error: "must be claude or codex" }).default("claude"),
  CLAUDE_BIN: commandField("claude"),
  /** Claude Code's --permission-mode for headless turns; see the README for the trade-off. */
  CLAUDE_PERMISSION_MODE: z
    .enum(["default", "acceptEdits", "bypassPermissions", "plan"], {
      error: "must be one of default, acceptEdits, bypassPermissions, plan",
    })
    .default("acceptEdits"),
  /** Tools Claude Code may use without asking (its --allowedTools). */
  CLAUDE_ALLOWED_TOOLS: stringList().default([
    "Bash",
    "Read",
    "Edit",
    "Write",
    "Glob",
    "Grep",
    "LS",
    "TodoWrite",
  ]),
  CODEX_BIN: commandField("codex"),
  /** Codex's approval policy: on-request sends approval requests to the chat; never runs without asking. */
  CODEX_APPROVAL_POLICY: z
    .enum(["untrusted", "on-request", "never"], { error: "must be one of untrusted, on-request, never" })
    .default("on-request"),
  CODEX_SANDBOX: z
    .enum(["read-only", "workspace-write", "danger-full-access"], {
      error: "must be one of read-only, workspace-write, danger-full-access",
    })
    .default("workspace-write"),
  /** A Codex turn that has not reached its model provider after this (Codex keeps retrying) fails. */
  CODEX_CONNECT_TIMEOUT_S: seconds(30),
  /** An unanswered approval request is declined after this. */
  APPROVAL_TIMEOUT_S: seconds(300),
  /** Queued coding turns per host; past this, new turns get QUEUE_FULL at once. */
  MAX_PENDING: positiveInt(10),
  /** A coding turn still running after this continues as a background task. */
  LONG_TURN_S: seconds(60),
  /** How long an interrupted agent gets to stop before it is killed or restarted. */
  STOP_GRACE_S: seconds(5),

  // The workspace: memory, channel logs, skills, custom tools, events.
  /** Default: DATA_DIR/host/<node>/workspace. */
  WORKSPACE_DIR: pathField().optional(),
  /** Memory files put into the prompt, in estimated tokens; past it the beginning is kept, marked cut. */
  MEMORY_MAX_TOKENS: positiveInt(4000),
  /** A custom tool (workspace tools/) still running after this is aborted and the model told so. */
  CUSTOM_TOOL_TIMEOUT_S: seconds(120),

  // Master/Worker plans (the delegate tool).
  /** Workers that run at once on this host (its own plans and subtasks other nodes send it). */
  WORKERS: z.coerce.number().int().min(1, "must be at least 1").max(32).default(3),
  /** A subtask's time limit when the plan gives none; at it the worker and its processes are killed. */
  WORKER_TTL_S: z.coerce.number().int().min(5, "must be at least 5").max(3600).default(300),
  /** Subtasks one plan may have. */
  MAX_SUBTASKS: z.coerce.number().int().min(1).max(50).default(10),
  /** Times a failed or timed-out subtask is run again (with the error in its context). */
  WORKER_MAX_RETRIES: z.coerce.number().int().min(0).max(5).default(1),
  /** A plan's progress message is edited at most this often. */
  PLAN_PROGRESS_INTERVAL_S: z.coerce.number().nonnegative().default(5),

  // Terminals (node-pty): /term from chat, and the router's console.
  /** Terminals running at once on this host, from chat and the console together; past it one is refused. */
  MAX_TERMINALS: z.coerce
    .number({ error: "must be a whole number" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(64, "must be at most 64")
    .default(4),
  /** A terminal without input for this long is closed, and everything it started killed. */
  TERMINAL_IDLE_S: seconds(900),
  /**
   * Output one terminal may hold before its reader has taken it (also the window of unacknowledged
   * output on the link); past it the PTY is paused and the program blocks.
   */
  TERMINAL_BUFFER_BYTES: z.coerce
    .number({ error: "must be a number of bytes" })
    .int("must be a whole number of bytes")
    .min(128 * 1024, "must be at least 131072 (128 KiB): the PTY is read up to 64 KiB at a time")
    .max(64 * 1024 * 1024, "must be at most 67108864 (64 MiB)")
    .default(256 * 1024),

  // Reminders and scheduled checks.
  /** Time zone for times without an offset and for cron expressions (default: this machine's). */
  TIME_ZONE: z
    .string()
    .default(() => Intl.DateTimeFormat().resolvedOptions().timeZone)
    .refine(isTimeZone, "must be an IANA time zone, e.g. Asia/Shanghai"),
  /** Shortest allowed repeat interval of a scheduled job. */
  SCHEDULE_MIN_INTERVAL_S: seconds(60),
  /** How often due jobs are looked for. */
  SCHEDULER_TICK_S: seconds(2),
  /** A run later than this after its due time (host down or asleep) counts as late. */
  SCHEDULE_LATE_AFTER_S: seconds(60),

  // The sandbox the commands run for users run in: SANDBOX, SANDBOX_NETWORK, SANDBOX_WRITABLE, SANDBOX_HIDE.
  ...sandboxFields,

  // Model usage: MODEL_PRICES, USAGE_RETENTION_DAYS, USAGE_FOOTER and the limits (usage-config.ts).
  ...usageFields,
});

/** Plaintext only where nobody else can listen: the secret or the handshake would travel in clear. */
function plaintextAllowed(config: { ROUTER_URL: string; ALLOW_INSECURE_TRANSPORT: boolean }): boolean {
  const url = new URL(config.ROUTER_URL);
  return url.protocol !== "ws:" || isLoopbackHost(url.hostname) || config.ALLOW_INSECURE_TRANSPORT;
}

export const HostConfigSchema = HostConfigFields.refine(
  // base64 grows a file by 4/3; the frame around it needs a little room too.
  (config) => Math.ceil(config.MAX_FILE_BYTES / 3) * 4 + 64 * 1024 <= config.MAX_PAYLOAD_BYTES,
  {
    path: ["MAX_FILE_BYTES"],
    message: "is too large to fit in one frame; raise MAX_PAYLOAD_BYTES too (≥ 4/3 × MAX_FILE_BYTES + 64 KB)",
  },
)
  .refine(plaintextAllowed, {
    path: ["ROUTER_URL"],
    message:
      "is ws:// (plaintext) to a router on another machine; use wss:// (TLS on the router, or a proxy in front), or set ALLOW_INSECURE_TRANSPORT=1 on a network you trust",
  })
  .transform((config) => {
    const nodeId = config.NODE_ID ?? defaultNodeId();
    return {
      ...config,
      NODE_ID: nodeId,
      /** NODE_ID was set by the user, not taken from the machine's name. */
      nodeIdExplicit: config.NODE_ID !== undefined,
    };
  });

export type HostConfig = z.output<typeof HostConfigSchema>;

/** WORKING_DIR, made if it is the default and not there yet (mode 0700: the user's work alone). */
export function ensureWorkingDir(config: Pick<HostConfig, "WORKING_DIR">): void {
  mkdirSync(config.WORKING_DIR, { recursive: true, mode: 0o700 });
}
