import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { addConfigSecrets, createLogger, SecretValues } from "../src/index.ts";

// Redaction by value: whatever shape a secret arrives in (a message string, a nested field, an
// error's stack, a header dump), the line written out does not contain it.

function capture(secrets: SecretValues) {
  let out = "";
  const destination = new Writable({
    write(chunk, _encoding, done) {
      out += chunk.toString();
      done();
    },
  });
  return { logger: createLogger({ level: "trace", destination, secrets }), output: () => out };
}

const APP_SECRET = "feishu-app-secret-8c1f2e";
const ROUTER_SECRET = "router-secret-3b9d0a";

describe("logger with secret values", () => {
  it("redacts a secret inside an error message string, at every level", () => {
    const { logger, output } = capture(new SecretValues([APP_SECRET]));
    const text = `POST /auth/v3/tenant_access_token failed: {"app_id":"cli_1","app_secret":"${APP_SECRET}"}`;
    for (const level of ["trace", "debug", "info", "warn", "error", "fatal"] as const) logger[level](text);
    logger.error({ err: text }, "Feishu unreachable at start");
    expect(output()).not.toContain(APP_SECRET);
    expect(output().split("\n").filter(Boolean)).toHaveLength(7);
  });

  it("redacts a secret in a nested object under a key no redact path names", () => {
    const { logger, output } = capture(new SecretValues([ROUTER_SECRET]));
    logger.info({ request: { options: { extra: [`x ${ROUTER_SECRET} y`] } } }, "sent");
    expect(output()).not.toContain(ROUTER_SECRET);
    expect(output()).toContain("x [redacted] y");
  });

  it("redacts a secret inside an err with a stack, and in a child logger", () => {
    const { logger, output } = capture(new SecretValues([APP_SECRET]));
    const error = new Error(`request failed with config ${APP_SECRET}`);
    logger.child({ component: "feishu" }).error({ err: error }, "start failed");
    logger.error(error);
    expect(output()).toContain('"stack"');
    expect(output()).not.toContain(APP_SECRET);
  });

  it("redacts a secret that the JSON line shows escaped", () => {
    const quoted = 'pa"ss\\word-123';
    const { logger, output } = capture(new SecretValues([quoted]));
    logger.info({ note: `value ${quoted}` }, "x");
    expect(output()).not.toContain(JSON.stringify(quoted).slice(1, -1));
    expect(output()).toContain("[redacted]");
  });

  it("redacts bearer tokens and Feishu tokens it was never told about", () => {
    const { logger, output } = capture(new SecretValues());
    const tenantToken = "t-g1044ghJRUIJJ5ELKXCGU3DUCWSQBZXYZW9XQRCB";
    logger.error(
      {
        err: `Request failed with status code 500: headers {"Authorization":"Bearer ${tenantToken}"}`,
        dump: "authorization: bearer u-abcdefghijklmnopqrstuvwxyz123456",
        body: `{"code":0,"tenant_access_token":"${tenantToken}","app_access_token":"short-but-named"}`,
        form: "app_id=cli_1&app_secret=abc123def456",
      },
      `token ${tenantToken} expired`,
    );
    const out = output();
    for (const secret of [
      tenantToken,
      "u-abcdefghijklmnopqrstuvwxyz123456",
      "short-but-named",
      "abc123def456",
    ])
      expect(out).not.toContain(secret);
    expect(out).toContain("app_id=cli_1");
  });

  it("redacts a secret added at run time, from then on", () => {
    const secrets = new SecretValues();
    const { logger, output } = capture(secrets);
    const joinCode = "JOIN-7K2Q-9XPL";
    secrets.add(joinCode);
    logger.info({ code: joinCode }, `join with ${joinCode}`);
    expect(output()).not.toContain(joinCode);
  });

  it("leaves ordinary text untouched", () => {
    const { logger, output } = capture(new SecretValues([APP_SECRET, ROUTER_SECRET]));
    const ordinary =
      "node home-pc online; ran `ls -la` in t-shirt-designs/a-b; user_id=ou_123 task-42 took 3h 5m; snake_case_identifier_with_many_words";
    logger.info({ nodeId: "home-pc", path: "/home/me/a-very-long-directory_name" }, ordinary);
    expect(output()).toContain(ordinary);
    expect(output()).toContain("/home/me/a-very-long-directory_name");
    expect(output()).not.toContain("[redacted]");
  });
});

describe("SecretValues", () => {
  it("ignores values too short to redact without mangling ordinary text", () => {
    const secrets = new SecretValues(["s", "abc", "", undefined]);
    expect(secrets.redact("a session has started")).toBe("a session has started");
  });

  it("cuts out a secret that contains another one whole", () => {
    const secrets = new SecretValues(["secret-1", "secret-1-longer"]);
    expect(secrets.redact("a secret-1-longer b secret-1 c")).toBe("a [redacted] b [redacted] c");
  });

  it("takes every secret-named config key, and nothing else", () => {
    const secrets = new SecretValues();
    addConfigSecrets(secrets, {
      ROUTER_SECRET: "value-router-secret",
      OPENAI_API_KEY: "value-openai-key",
      FEISHU_ENCRYPT_KEY: "value-encrypt-key",
      FEISHU_VERIFICATION_TOKEN: "value-verification",
      ADMIN_TOKEN: "value-admin-token",
      SMTP_PASSWORD: "value-password",
      JOIN_CODE: "value-join-code",
      NODE_ID: "value-node-id",
      HISTORY_MAX_TOKENS: 24_000,
      OPENAI_MODEL: "value-model",
    });
    const text =
      "value-router-secret value-openai-key value-encrypt-key value-verification value-admin-token value-password value-join-code";
    expect(secrets.redact(text)).toBe(Array(7).fill("[redacted]").join(" "));
    expect(secrets.redact("value-node-id value-model")).toBe("value-node-id value-model");
  });

  it("takes secrets nested in adapter settings (snake_case keys), and not their other values", () => {
    const secrets = new SecretValues();
    addConfigSecrets(secrets, {
      adapters: {
        tg: {
          type: "telegram",
          bot_token: "123456:nested-bot-token",
          webhook_secret: "nested-hook",
          admins: ["42"],
        },
        work: {
          type: "feishu",
          app_id: "cli_visible",
          app_secret: "nested-app-secret",
          encrypt_key: "nested-enc",
        },
      },
    });
    expect(secrets.redact("123456:nested-bot-token nested-hook nested-app-secret nested-enc")).toBe(
      Array(4).fill("[redacted]").join(" "),
    );
    expect(secrets.redact("cli_visible telegram")).toBe("cli_visible telegram");
  });

  it("cuts a Telegram bot token out of a Bot API URL it never saw", () => {
    const secrets = new SecretValues();
    expect(
      secrets.redact(
        "POST https://api.telegram.org/bot7012345678:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage failed",
      ),
    ).toBe("POST https://api.telegram.org/bot[redacted]/sendMessage failed");
  });
});
