// What each configuration key means, for docs/configuration-keys.md (scripts/config-docs.ts). A key
// whose schema has a `.describe()` text uses that instead. `default` is the text shown in place of
// the schema's default: for a default worked out at start (this machine's home, name or time zone,
// a random secret, another key's value) or one that needs words ("none" meaning nobody, or everyone).

export interface KeyDoc {
  description: string;
  default?: string;
}

export const KEY_DOCS: Record<string, KeyDoc> = {
  ROUTER_SECRET: {
    description:
      "a shared secret that admits hosts only on a router bound to loopback (standalone, tests); ignored (with a warning) elsewhere, where hosts pair",
    default: "none (standalone: random)",
  },
  ADMINS: {
    description:
      "users who may `/pair`, `/revoke`, `/forget`, `/share`, `/unshare`, `/status` (qualified ids, `telegram:123`; bare means the only adapter), added to each adapter's own `admins`",
    default: "the only `ALLOWED_USERS` entry, else nobody",
  },
  ADMIN_TOKEN: {
    description: "`Authorization: Bearer …` for the full `GET /health` (≥ 16 characters)",
    default: "none (no full view over HTTP)",
  },
  JOIN_CODE_TTL_S: {
    description: "how long a join code from `/pair` stays valid (it works once)",
  },
  TLS_CERT_FILE: {
    description: "serve HTTPS/WSS with this certificate and key (PEM); both or neither",
  },
  TLS_KEY_FILE: {
    description: "serve HTTPS/WSS with this certificate and key (PEM); both or neither",
  },
  CONSOLE: {
    description:
      "`on`: the [web console](console.md) and `/console` (with at least one chat to ask from); `off`: neither",
  },
  PUBLIC_URL: {
    description:
      "the router's address as browsers reach it (`https://router.example.com`, through a proxy too): console links and the console's origin check; `https` makes its cookie Secure",
    default: "the listen address",
  },
  CONSOLE_LINK_TTL_S: {
    description: "how long a `/console` login link stays valid (it works once)",
  },
  CONSOLE_SESSION_TTL_S: {
    description: "how long a console sign-in lasts (`/console logout-all` ends them sooner)",
  },
  CONSOLE_LOGIN_PER_MIN: {
    description:
      "console login attempts one client address may make per minute (the forwarded address behind a `TRUST_PROXY`); the rest get 429",
  },
  CONSOLE_LOGIN_PER_CODE: {
    description: "console login attempts with one code, from any address; past it the code is burned (429)",
  },
  CONSOLE_TERMINAL_BUFFER_BYTES: {
    description:
      "output of one console terminal the router holds before the browser has taken it; a host whose `TERMINAL_BUFFER_BYTES` is larger cannot open console terminals",
  },
  CONSOLE_TERMINAL_REATTACH_S: {
    description:
      "how long a console terminal waits for its page to come back (a reload, a dropped connection) before it is closed",
  },
  WEB_PUSH_SUBJECT: {
    description:
      "the contact push services see in the console's [Web Push](console.md) requests (VAPID `sub`): a `mailto:` address or an `https:` URL",
    default: "`PUBLIC_URL` when it is https, else `mailto:phonework@example.com`",
  },
  MAX_PUSH_CHARS: {
    description: "a pushed text longer than this is cut, with a marker",
  },
  PUSH_RATE_PER_MIN: {
    description: "pushes one node may send per minute; the rest get RATE_LIMITED (the host retries later)",
  },
  MAX_CHAT_QUEUE: {
    description: "sends waiting for one chat; past it, more are refused",
  },
  WEBHOOK_MAX_AGE_S: {
    description: "webhook events signed further than this from now (past or future) are refused",
  },
  JOIN_CODE: {
    description:
      "a join code from `/pair`; also `phonework host --join <code>`. Once accepted the key is saved and the code is not needed",
  },
  ALLOW_INSECURE_TRANSPORT: {
    description: "`1` permits `ws://` to a router on another machine (warned at every connect)",
  },
  ROUTER_CA_FILE: {
    description: "CA (PEM) of a self-signed router certificate",
  },
  ROUTER_CERT_SHA256: {
    description: "or pin the router's certificate by its SHA-256 fingerprint (hex, colons optional)",
  },
  ROUTER_HOST: {
    description: "address to listen on",
  },
  ROUTER_PORT: {
    description: "port to listen on",
    default: "`8000` (standalone: any free port)",
  },
  ROUTER_URL: {
    description: "the router's node endpoint",
  },
  NODE_ID: {
    description:
      "node id (letters, digits, `.`, `_`, `-`); a NODE_ID that contradicts the pairing stops the host",
    default: "the paired id (from the join code, then `identity.json`); else the hostname",
  },
  DISPLAY_NAME: {
    description: "shown in `/nodes`",
    default: "`NODE_ID`",
  },
  SERVES_USERS: {
    description:
      "narrows who this host serves (the router grants its owner and shares; comma-separated in the environment, a list in YAML; qualified ids, a bare one means the router's only chat adapter)",
    default: "empty = all the router grants",
  },
  WORKING_DIR: {
    description:
      "the projects folder; tools and sessions cannot leave it; must exist (the default is made at the first start); set it to your projects folder",
    default: "`~/phonework` (made at the first start, 0700)",
  },
  DATA_DIR: {
    description:
      "state, all 0700/0600: the router's `router/router.db` (paired nodes, shares, join-code hashes, delivered ids, seen events, request origins, incoming chat messages until handled and a day after, buttons sent, console link and sign-in hashes, each user's last 100 console chat messages (`console_messages`), the console's Web Push keys (made once) and each sign-in's push subscriptions, each user's active node, chats and `/details` and `/voice` settings, each user's last voice note that could not be transcribed, audio included, for `/retry` (`voice_notes`, a week), the routing model's token usage (`routing_usage`, `USAGE_RETENTION_DAYS`); `router/users.json.bak` is the file those came from before, imported once); a host's `host/identity.json` (its key; `identity.json.bak` the one a new join code replaced) and `host/<node>/` (`state.db` with the outbox and each item's origin, scheduled jobs, background tasks, coding sessions and their last 5 turns (`session_turns`), plans and who may read which chat, model token usage and limit lifts (`model_usage`, `usage_lifts`, `USAGE_RETENTION_DAYS`), and whether each model takes images (`model_vision`); `user-memory/` with each user's memory, outside the workspace; `workspace/` with memory, skills, tools, events and each chat's log, context and files; `history/*.json.bak`, per-user history from before the workspace); files sent to the terminal chat. Outside it: the `phonework` command keeps V8's compiled code in the OS's temp directory (`node-compile-cache/`), which may be deleted at any time",
    default: "`~/.phonework`",
  },
  HEARTBEAT_INTERVAL_S: {
    description: "ping interval",
  },
  HEARTBEAT_TIMEOUT_S: {
    description: "a node that has not answered a ping by then is dropped",
  },
  REQUEST_TIMEOUT_S: {
    description: "how long a forwarded message may take",
  },
  HANDSHAKE_TIMEOUT_S: {
    description: "how long a new node socket has to register; then it is dropped (no closing handshake)",
  },
  MAX_PAYLOAD_BYTES: {
    description: "largest frame; bigger ones close the socket with 1009",
  },
  PROGRESS_INTERVAL_S: {
    description: "minimum seconds between edits of a progress message",
  },
  RECONNECT_MAX_DELAY_S: {
    description: "cap of the reconnect backoff",
  },
  LOG_LEVEL: {
    description:
      "pino level of the whole log (see [Logs](configuration.md#logs)); SIGHUP reloads it on the router",
  },
  LOG_FORMAT: {
    description:
      "`auto`: human-readable (pino-pretty) on a terminal, JSON anywhere else (a pipe, a file); `pretty` or `json` for every destination",
  },
  OPENAI_BASE_URL: {
    description: "any OpenAI-compatible endpoint (GLM: `https://open.bigmodel.cn/api/paas/v4/`)",
    default: "OpenAI",
  },
  OPENAI_API_KEY: {
    description:
      "host: without it, commands work and messages get a reply saying how to configure a model; router: the routing LLM's key unless `ROUTER_LLM_API_KEY` is set",
  },
  OPENAI_MODEL: {
    description: "model name, e.g. `glm-4.7`",
  },
  ROUTER_LLM_BASE_URL: {
    description: "the routing LLM; with no key at all, routing never calls a model",
    default: "its `OPENAI_*` twin",
  },
  ROUTER_LLM_API_KEY: {
    description: "the routing LLM; with no key at all, routing never calls a model",
    default: "its `OPENAI_*` twin",
  },
  ROUTER_LLM_MODEL: {
    description: "the routing LLM; with no key at all, routing never calls a model",
    default: "its `OPENAI_*` twin",
  },
  ROUTER_LLM_TIMEOUT_S: {
    description: "a slower routing call falls back to the active node",
  },
  STT_BASE_URL: {
    description:
      "an OpenAI-compatible speech-to-text endpoint (`POST …/audio/transcriptions`: OpenAI `https://api.openai.com/v1`, Groq `https://api.groq.com/openai/v1`, or a local whisper.cpp / faster-whisper server): voice notes are transcribed on the router before routing and their transcript is the message; without it, a voice note gets a sentence saying how to turn this on",
    default: "none (voice notes are not transcribed)",
  },
  STT_API_KEY: {
    description: "the speech-to-text endpoint's key (a local server needs none)",
    default: "none",
  },
  STT_MODEL: {
    description:
      "the transcription model (`whisper-1`, Groq's `whisper-large-v3-turbo`, what a local server serves)",
  },
  STT_MAX_SECONDS: {
    description:
      "longest voice note transcribed (as the platform declares it and as its OGG/WAV header, or ffprobe, says); a longer one gets a sentence and nothing is sent",
  },
  STT_MAX_BYTES: {
    description: "largest voice note transcribed; a larger one gets a sentence and nothing is sent",
  },
  STT_TIMEOUT_S: {
    description:
      "a slower transcription is given up: the user is told, and `/retry` tries the kept voice note again",
  },
  TTS_BASE_URL: {
    description:
      "an OpenAI-compatible text-to-speech endpoint (`POST …/audio/speech`): a user who turned `/voice on` also gets short answers as speech (a voice note on Telegram, an audio file elsewhere)",
    default: "`STT_BASE_URL` (none: `/voice on` says which key to set)",
  },
  TTS_API_KEY: {
    description: "the text-to-speech endpoint's key",
    default: "`STT_API_KEY`",
  },
  TTS_MODEL: {
    description: "the speech model (`tts-1`, `gpt-4o-mini-tts`, what a local server serves)",
  },
  TTS_VOICE: {
    description: "the voice answers are spoken in (`alloy`, `nova`, …)",
  },
  TTS_MAX_CHARS: {
    description:
      "only answers this short (after code blocks and markdown are taken out) are spoken; longer ones, and answers that are mostly code, stay text only",
  },
  OPENAI_MAX_RETRIES: {
    description: "retries of 429/5xx answers, with backoff",
  },
  OPENAI_VISION: {
    description:
      "whether photos and image files users send go to the assistant's model as images (beside their path): `auto` asks the model once with a tiny image and remembers the answer in `state.db` per model and base URL; `on`; `off` (the path only). Coding sessions get images either way",
  },
  IMAGE_MAX_BYTES: {
    description:
      "largest image sent to a model, after scaling to 1,568 px on the long side (JPEG/PNG, smaller in steps until it fits); 3.75 MB keeps its base64 within the 5 MB Anthropic's API takes per image",
  },
  AGENT_MAX_STEPS: {
    description: "tool-calling steps per turn before the assistant stops and says so",
  },
  HISTORY_MAX_TOKENS: {
    description:
      "how much of a chat's context the model sees (estimated tokens); `context.jsonl` keeps all of it",
  },
  CHANNEL_LOG_THREAD_AT: {
    description:
      "the channel log (`log.jsonl`) is written on a thread of its own once the host writes this many chats' lines within one second (one per chat per event-loop turn; a busy host: it saves the main thread a stat and a write each, and costs ~15 MB of memory from then on); 0 starts the thread at the first line",
  },
  MAX_FILE_BYTES: {
    description: "largest file `file_ops send` delivers (must fit a frame: about ¾ of `MAX_PAYLOAD_BYTES`)",
  },
  MAX_ATTACHMENT_BYTES: {
    description:
      "files that came with one chat message, saved in the chat's `attachments/` in the workspace; over it a file is skipped and the message says so (the router sends only what fits a frame: about 70% of `MAX_PAYLOAD_BYTES`)",
  },
  BACKGROUND_TIMEOUT_S: {
    description: "a background shell task is killed after this",
  },
  WORKERS: {
    description: "workers that run at once on this host (its own plans and subtasks other nodes send)",
  },
  WORKER_TTL_S: {
    description:
      "a subtask's time limit when the plan gives none; the worker and its processes are killed at it",
  },
  MAX_SUBTASKS: {
    description: "subtasks one plan may have",
  },
  WORKER_MAX_RETRIES: {
    description: "times a failed or timed-out subtask runs again",
  },
  PLAN_PROGRESS_INTERVAL_S: {
    description: "a plan's progress message is edited at most this often",
  },
  METASO_API_KEY: {
    description: "enables the `web` tool",
  },
  METASO_MCP_URL: {
    description: "the MCP server behind the `web` tool",
  },
  DEFAULT_AGENT: {
    description: "agent for `/new` when none is named",
  },
  CLAUDE_BIN: {
    description: "the Claude Code CLI",
  },
  CLAUDE_PERMISSION_MODE: {
    description:
      "`default`, `acceptEdits`, `bypassPermissions` or `plan` (see [Coding sessions](assistant.md#why-claude_permission_modeacceptedits-with-an-allowlist))",
  },
  CLAUDE_ALLOWED_TOOLS: {
    description: "tools Claude may use without asking",
  },
  CODEX_BIN: {
    description: "the Codex CLI",
  },
  CODEX_APPROVAL_POLICY: {
    description: "`untrusted`, `on-request` or `never`",
  },
  CODEX_SANDBOX: {
    description: "`read-only`, `workspace-write` or `danger-full-access`",
  },
  CODEX_CONNECT_TIMEOUT_S: {
    description:
      "a Codex turn still retrying its model provider with no output after this fails with the provider's error",
  },
  APPROVAL_TIMEOUT_S: {
    description: "an unanswered approval request is declined after this",
  },
  MAX_PENDING: {
    description: "coding turns queued or running per host before `QUEUE_FULL`",
  },
  LONG_TURN_S: {
    description: "a coding turn running longer continues as a background task",
  },
  STOP_GRACE_S: {
    description: "time an interrupted agent gets before it is killed or restarted",
  },
  WORKSPACE_DIR: {
    description: "the host's workspace: memory, skills, custom tools, events, one directory per chat",
    default: "`DATA_DIR/host/<node>/workspace`",
  },
  MEMORY_MAX_TOKENS: {
    description:
      "the two memory files in the system prompt, together (estimated tokens); past it each keeps its beginning and the prompt says it was cut",
  },
  CUSTOM_TOOL_TIMEOUT_S: {
    description:
      "a custom tool (workspace `tools/`) still running after this is aborted; the model gets an error result",
  },
  SANDBOX: {
    description:
      "the bubblewrap sandbox for user commands (see [the sandbox](assistant.md#the-sandbox)): `auto` where it works (one warning at start where not), `on` (refuse to start without it, saying why), `off`",
  },
  SANDBOX_NETWORK: {
    description:
      "`on`: commands use the network as the host does; `off`: a network namespace of their own, nothing reachable. A list of domains is refused (bubblewrap alone cannot filter by domain)",
  },
  SANDBOX_WRITABLE: {
    description:
      "more paths commands may write, e.g. `~/.cache,~/.npm` (comma-separated or a YAML list; `~` expanded; paths that exist)",
  },
  SANDBOX_HIDE: {
    description:
      "more paths commands may not see, besides `DATA_DIR`, `~/.ssh`, `~/.aws`, `~/.config/gh`, `$XDG_RUNTIME_DIR` and the Docker socket — e.g. a config file outside `DATA_DIR` that holds keys",
  },
  MODEL_PRICES: {
    description:
      'what model calls cost, in USD per million tokens: `{"model": {"input": 2.5, "cached": 1.25, "output": 10}}` (YAML mapping or JSON); a name matches a model that starts with it; adds to or replaces the dated defaults in [usage](usage.md); a model with no price shows tokens only',
    default: "a few well-known models (see [usage](usage.md))",
  },
  USAGE_RETENTION_DAYS: {
    description:
      "model usage rows (host: `state.db`; router: the routing LLM's, `router.db`) older than this are deleted, at start and every few hours",
  },
  USAGE_FOOTER: {
    description:
      "`on`: a line `1.2k in · 340 out · $0.004` under each answer of the assistant; the `/details` view shows it either way",
  },
  USER_DAILY_TOKEN_LIMIT: {
    description:
      "tokens (in + out) one user's model calls may spend on this host per day (`TIME_ZONE`'s day): warned at 80%, then new assistant turns and plan workers are refused until midnight; coding sessions are warned, not cut; an owner's `/usage lift <user>` lifts it for a day",
    default: "none",
  },
  USER_DAILY_COST_LIMIT: {
    description: "the same in USD, over the calls with a price (`MODEL_PRICES`)",
    default: "none",
  },
  PLAN_TOKEN_LIMIT: {
    description:
      "tokens one plan's workers and report may spend on this host; at it the plan's workers are refused and its report says why",
    default: "none",
  },
  TIME_ZONE: {
    description: "IANA zone for reminder times without an offset, cron, and how times are shown",
    default: "this machine's",
  },
  SCHEDULE_MIN_INTERVAL_S: {
    description: "shortest repeat interval of a scheduled job",
  },
  SCHEDULER_TICK_S: {
    description: "how often due jobs are looked for",
  },
  SCHEDULE_LATE_AFTER_S: {
    description: "a run this far past its due time counts as late (host was down)",
  },
  MAX_TERMINALS: {
    description:
      "terminals running at once on this host, `/term` and the console's together; past it opening one is refused, saying so",
  },
  TERMINAL_IDLE_S: {
    description: "a terminal without input for this long is closed and everything it started killed",
  },
  TERMINAL_BUFFER_BYTES: {
    description:
      "output one terminal may hold before its reader has taken it (and the unacknowledged window on the link); past it the PTY is paused, so the program waits (≥ 131072)",
  },
  DELIVERED_TTL_S: {
    description: "how long delivered push ids are remembered against resends",
  },
  CHAT: {
    description:
      "`auto`: every configured platform; with none, the terminal when stdin is one, else headless (the standalone: else the terminal, piped or not); `terminal`: the terminal beside the configured platforms, stdin even when piped (end of input stops it); `none`: headless",
  },
  adapters: {
    description:
      "named chat adapters: `name: {type: telegram|feishu|slack|discord, …its keys in snake_case, admins, dm}` (see [Chat platforms](platforms.md))",
  },
  TELEGRAM_BOT_TOKEN: {
    description: "the Telegram bot (adapter `telegram`)",
  },
  TELEGRAM_MODE: {
    description: "`polling` (long polling) or `webhook` (`POST /webhook/telegram`)",
  },
  TELEGRAM_WEBHOOK_SECRET: {
    description:
      "the `X-Telegram-Bot-Api-Secret-Token` every webhook request must carry (1–256 of `A-Z a-z 0-9 _ -`)",
    default: "none; required with `TELEGRAM_MODE=webhook`",
  },
  TELEGRAM_WEBHOOK_URL: {
    description:
      "the public URL registered with `setWebhook` at start; without it the webhook set elsewhere is kept",
  },
  TELEGRAM_API_ROOT: {
    description: "another Bot API server (a local one, or a fake)",
    default: "`https://api.telegram.org`",
  },
  SLACK_BOT_TOKEN: {
    description: "the Slack app's bot token, `xoxb-…` (adapter `slack`)",
  },
  SLACK_MODE: {
    description: "`socket` (Socket Mode, no public URL) or `http` (`POST /webhook/slack`, signed by Slack)",
  },
  SLACK_APP_TOKEN: {
    description: "the app-level token (`xapp-…`, scope `connections:write`) Socket Mode connects with",
    default: "none; required with `SLACK_MODE=socket`",
  },
  SLACK_SIGNING_SECRET: {
    description: "the app's Signing Secret; every HTTP post must carry Slack's v0 signature made with it",
    default: "none; required with `SLACK_MODE=http`",
  },
  SLACK_API_URL: {
    description:
      "another Web API server (Socket Mode's `apps.connections.open` goes there too; a fake in tests)",
    default: "`https://slack.com/api/`",
  },
  DISCORD_BOT_TOKEN: {
    description:
      "the Discord bot's token from the developer portal (adapter `discord`; enable the Message Content intent)",
  },
  DISCORD_API_URL: {
    description:
      "another Discord API (a stand-in, or a fake); the gateway's address comes from its `/gateway/bot`",
    default: "`https://discord.com/api`",
  },
  FEISHU_APP_ID: {
    description: "the Feishu app (adapter `feishu`)",
  },
  FEISHU_APP_SECRET: {
    description: "the Feishu app (adapter `feishu`)",
  },
  FEISHU_DOMAIN: {
    description: "`feishu`, `lark`, or a base URL (a proxy)",
  },
  FEISHU_MODE: {
    description: "`ws` (long connection) or `webhook` (`POST /webhook/feishu`)",
  },
  FEISHU_ENCRYPT_KEY: {
    description: "webhook decryption, signature and token checks",
    default: "none; both required with `FEISHU_MODE=webhook` (empty counts as unset)",
  },
  FEISHU_VERIFICATION_TOKEN: {
    description: "webhook decryption, signature and token checks",
    default: "none; both required with `FEISHU_MODE=webhook` (empty counts as unset)",
  },
  ALLOWED_USERS: {
    description:
      "users allowed to use the bot (qualified ids; bare means the only adapter): added to the `dm` list of the adapter each names; `*` for everyone on every adapter",
    default: "empty (nobody)",
  },
  SEEN_EVENTS_TTL_S: {
    description: "how long redelivered events are recognised (≥ 43200)",
  },
  MAX_NODE_PENDING: {
    description:
      "requests of one user waiting on one node before that user's new ones get QUEUE_FULL (others are not locked out)",
  },
  SLOW_SOCKET_BYTES: {
    description: "a node with more than this unsent for this long is cut off",
  },
  SLOW_SOCKET_S: {
    description: "a node with more than this unsent for this long is cut off",
  },
  MAX_HANDSHAKES_PER_S: {
    description: "node handshakes accepted per second; the rest get 503 + Retry-After",
  },
  MAX_CONNECTIONS_PER_ADDRESS: {
    description:
      "connections one client address (an IPv6 /64) may hold until they are a registered host or a signed-in console socket; past it new ones are dropped when accepted (logged once per address an hour). Trusted proxies are exempt",
  },
  MAX_CONNECTIONS: {
    description:
      "open connections in all; past it new ones are dropped, leaving descriptors for the router's own files",
    default: "the open-files limit less 5% (at least 100 less); none where it cannot be read",
  },
  HTTP_HEADERS_TIMEOUT_S: {
    description:
      "a connection whose request head (or TLS handshake) is not complete by then gets 408 and is closed",
  },
  HTTP_REQUEST_TIMEOUT_S: {
    description: "the same for a whole request, body included (≥ `HTTP_HEADERS_TIMEOUT_S`)",
  },
  TRUST_PROXY: {
    description:
      "whose `X-Forwarded-For` to believe: `off`; `on` (every peer's: only for a router reachable through its proxy alone); or the proxies' addresses and CIDR ranges, comma-separated (`127.0.0.1,10.0.0.0/8`). Rate limits then key on the client behind the proxy, and the proxy's connections are not capped per address. The shared secret is never accepted through a proxy either way",
  },
};
