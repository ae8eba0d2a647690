// What `--help` says after each command's flags: the chat platforms it serves and the configuration
// keys that matter most, with where every key is. Plain text, so `--help` still loads nothing.

const PLATFORMS =
  "Chat platforms: Telegram (TELEGRAM_BOT_TOKEN), Feishu / Lark (FEISHU_APP_ID, FEISHU_APP_SECRET),\n" +
  "Slack (SLACK_BOT_TOKEN, SLACK_APP_TOKEN), Discord (DISCORD_BOT_TOKEN), the web console (CONSOLE,\n" +
  "/console in chat), and the terminal (CHAT=terminal).";

const EVERY_KEY =
  "Every key, its default and meaning: docs/configuration-keys.md (in the PhoneWork repository).";

/** Each setting's sources, first to last; the same for every command that reads a config. */
export const PRECEDENCE_HELP =
  "Each setting comes from, first to last: a flag, the environment (KEY=value), the --config file\n" +
  "(or PHONEWORK_CONFIG), the default.";

const block = (...parts: string[]) => `\n${parts.join("\n\n")}\n`;

const ROUTER_KEYS =
  "Main keys:\n" +
  "  chat        TELEGRAM_BOT_TOKEN, FEISHU_APP_ID, FEISHU_APP_SECRET, SLACK_BOT_TOKEN, SLACK_APP_TOKEN,\n" +
  "              DISCORD_BOT_TOKEN, CHAT (and TELEGRAM_MODE, FEISHU_MODE, SLACK_MODE for webhooks)\n" +
  "  who         ALLOWED_USERS (telegram:<id>, feishu:<open_id>, slack:<id>, discord:<id>), ADMINS\n" +
  "  network     ROUTER_HOST, ROUTER_PORT, PUBLIC_URL, TRUST_PROXY, TLS_CERT_FILE, TLS_KEY_FILE\n" +
  "  routing     OPENAI_API_KEY (or ROUTER_LLM_API_KEY), ROUTER_LLM_MODEL\n" +
  "  state, log  DATA_DIR, LOG_LEVEL";

const HOST_KEYS =
  "Main keys:\n" +
  "  router      ROUTER_URL, JOIN_CODE, ROUTER_CA_FILE or ROUTER_CERT_SHA256 (a self-signed router)\n" +
  "  this PC     WORKING_DIR, DATA_DIR, NODE_ID, SERVES_USERS, SANDBOX\n" +
  "  assistant   OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL; CLAUDE_BIN, CODEX_BIN";

const STANDALONE_KEYS =
  "Main keys:\n" +
  "  chat        TELEGRAM_BOT_TOKEN, FEISHU_APP_ID, FEISHU_APP_SECRET, SLACK_BOT_TOKEN, SLACK_APP_TOKEN,\n" +
  "              DISCORD_BOT_TOKEN, CHAT, ALLOWED_USERS, ADMINS\n" +
  "  this PC     WORKING_DIR, DATA_DIR, SANDBOX, ROUTER_PORT (fixed, for more hosts or webhooks)\n" +
  "  assistant   OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL; CLAUDE_BIN, CODEX_BIN";

export const HELP_AFTER = {
  program: block(
    "router + hosts: a router (public VPS) takes chat messages; a host on each PC dials out to it\n" +
      "and does the work. standalone: both in one process on one PC.",
    PLATFORMS,
    `${PRECEDENCE_HELP}\n${EVERY_KEY}\nEach command's main keys: phonework <command> --help.`,
  ),
  standalone: block(
    `Serves every chat platform configured, else chats on this terminal.\n${PLATFORMS}`,
    STANDALONE_KEYS,
    `${PRECEDENCE_HELP}\n${EVERY_KEY}`,
  ),
  router: block(
    `Serves every chat platform configured; with none, this terminal (or headless: CHAT=none).\n${PLATFORMS}`,
    ROUTER_KEYS,
    `${PRECEDENCE_HELP}\n${EVERY_KEY}`,
  ),
  host: block(
    "A host has no chat of its own: its users reach it through the router's platforms\n" +
      "(Telegram, Feishu, Slack, Discord, the web console, the router's terminal).",
    HOST_KEYS,
    `${PRECEDENCE_HELP}\n${EVERY_KEY}`,
  ),
  pair: block(
    "Reads the router's config (the same DATA_DIR as the running router). The owner is a chat user:\n" +
      "telegram:<id> (Telegram), feishu:<open_id> (Feishu), slack:<id> (Slack), discord:<id> (Discord;\n" +
      "the web console signs in as these same users), or terminal:local on a router that chats on its\n" +
      "terminal; default: the only one of ADMINS or ALLOWED_USERS. The code is valid JOIN_CODE_TTL_S\n" +
      "(600 s) and works once.",
    `${PRECEDENCE_HELP}\n${EVERY_KEY}`,
  ),
  doctor: block(
    "Reads the same keys as the program it checks (router, host, standalone), and asks the chat\n" +
      "platforms configured whether they accept their credentials: Telegram (TELEGRAM_BOT_TOKEN),\n" +
      "Feishu (FEISHU_APP_ID, FEISHU_APP_SECRET), Slack (SLACK_BOT_TOKEN), Discord (DISCORD_BOT_TOKEN).\n" +
      "The web console and the terminal need none.",
    `${PRECEDENCE_HELP}\n${EVERY_KEY}`,
  ),
  service: block(
    "The service runs `phonework <app>` with the flags and the --config file given here, exactly: the\n" +
      "program's own flags (--router-url, --working-dir…), and a file `phonework <app> --save-config\n" +
      "<file>` wrote, or one with its keys (a host: ROUTER_URL, WORKING_DIR, OPENAI_API_KEY…; a router:\n" +
      "TELEGRAM_BOT_TOKEN, FEISHU_APP_ID, SLACK_BOT_TOKEN or DISCORD_BOT_TOKEN, ALLOWED_USERS, PUBLIC_URL…).\n" +
      "A service sees none of this shell's environment. It has no terminal, so a router or standalone as\n" +
      "a service chats on Telegram, Feishu, Slack, Discord and the web console.",
    EVERY_KEY,
  ),
} as const;
