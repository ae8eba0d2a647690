import { EventEmitter } from "node:events";
import type { Server, Socket } from "node:net";
import { createTestLogger } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { addressKey } from "../src/front-door/address-key.ts";
import { ConnectionCaps } from "../src/front-door/connection-caps.ts";
import { defaultMaxConnections, openFilesLimit } from "../src/front-door/open-files-limit.ts";
import { RefusalLog } from "../src/front-door/refusal-log.ts";
import { clientAddress, proxyMatcher } from "../src/front-door/trust-proxy.ts";

// The front door's small parts, with injected clocks and inputs: what one address is, the
// warn-once log, the connection limit's default, who a trusted proxy says the client is, and the
// per-address cap's bookkeeping (on emitters standing in for the server and its sockets).

describe("address keys", () => {
  it("an IPv4 client is itself, however the socket spells it; an IPv6 client is its /64", () => {
    expect(addressKey("203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:0db8:0001:0002:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
  });
});

describe("the warn-once refusal log", () => {
  it("logs an address once per window, then again with what went unlogged; its memory is bounded", () => {
    let now = 0;
    const { logger, lines } = createTestLogger();
    const log = new RefusalLog(logger, "refused", { windowMs: 1000, maxAddresses: 2, now: () => now });
    for (let i = 0; i < 100; i++) log.refused("192.0.2.1", { attempt: i });
    log.refused("2001:db8::1");
    log.refused("2001:db8::2"); // the same /64
    expect(lines().map((line) => [line.level, line.ip, line.attempt])).toEqual([
      [40, "192.0.2.1", 0],
      [40, "2001:db8::1", undefined],
    ]);
    now = 1000;
    log.refused("192.0.2.1");
    expect(lines().at(-1)).toMatchObject({ ip: "192.0.2.1", unloggedSinceLast: 99 });
    log.refused("192.0.2.3"); // pushes out the oldest remembered address (the /64)
    log.refused("2001:db8::3");
    expect(lines().map((line) => line.ip)).toEqual([
      "192.0.2.1",
      "2001:db8::1",
      "192.0.2.1",
      "192.0.2.3",
      "2001:db8::3",
    ]);
  });
});

describe("MAX_CONNECTIONS by default", () => {
  const limits = (soft: string) =>
    `Limit                     Soft Limit           Hard Limit           Units     \nMax open files            ${soft}                20000                files     \n`;

  it("is the open-files limit less 5% (at least 100); none where it cannot be read or is unlimited", () => {
    expect(openFilesLimit(() => limits("20000"))).toBe(20_000);
    expect(defaultMaxConnections(20_000)).toBe(19_000);
    expect(defaultMaxConnections(1024)).toBe(924);
    expect(defaultMaxConnections(undefined)).toBeUndefined();
    expect(openFilesLimit(() => limits("unlimited"))).toBeUndefined();
    expect(
      openFilesLimit(() => {
        throw new Error("ENOENT");
      }),
    ).toBeUndefined();
  });
});

describe("who the client is behind a trusted proxy", () => {
  const trusted = proxyMatcher({ kind: "list", entries: ["127.0.0.1", "10.0.0.0/8"] });

  it("the first hop from the right that is not a trusted proxy; a peer not trusted is the client", () => {
    expect(trusted("::ffff:10.1.2.3")).toBe(true);
    expect(trusted("192.0.2.1")).toBe(false);
    expect(clientAddress("127.0.0.1", "198.51.100.9, 10.0.0.5", trusted)).toBe("198.51.100.9");
    // A client writing its own X-Forwarded-For only adds hops to the left of the real one.
    expect(clientAddress("127.0.0.1", ["203.0.113.1", "198.51.100.9"], trusted)).toBe("198.51.100.9");
    expect(clientAddress("192.0.2.1", "203.0.113.1", trusted)).toBe("192.0.2.1");
    expect(clientAddress("127.0.0.1", undefined, trusted)).toBe("127.0.0.1");
    expect(clientAddress("127.0.0.1", "10.0.0.1", trusted)).toBe("10.0.0.1");
    expect(proxyMatcher({ kind: "off" })("127.0.0.1")).toBe(false);
    expect(proxyMatcher({ kind: "all" })("192.0.2.1")).toBe(true);
  });
});

describe("the per-address cap", () => {
  const fakeSocket = (port: number) =>
    Object.assign(new EventEmitter(), {
      remoteAddress: "203.0.113.7",
      remotePort: port,
      destroyed: false,
      destroy() {
        this.destroyed = true;
      },
    }) as unknown as Socket;

  it("counts a connection until it closes or is vouched for; a vouched one keeps no listener of the cap's", () => {
    const refused: string[] = [];
    const caps = new ConnectionCaps({
      maxPerAddress: 2,
      exempt: () => false,
      onRefused: (address) => refused.push(address),
    });
    const server = new EventEmitter();
    caps.attach(server as unknown as Server);
    const [a, b, c] = [fakeSocket(1), fakeSocket(2), fakeSocket(3)];
    for (const socket of [a, b, c]) server.emit("connection", socket);
    expect(caps.countFor("203.0.113.7")).toBe(2);
    expect(c.destroyed).toBe(true);
    expect(refused).toEqual(["203.0.113.7"]);
    caps.vouch(a);
    expect(caps.countFor("203.0.113.7")).toBe(1);
    expect(a.listenerCount("close")).toBe(0);
    a.emit("close"); // a vouched connection's close changes nothing
    expect(caps.countFor("203.0.113.7")).toBe(1);
    b.emit("close");
    expect(caps.countFor("203.0.113.7")).toBe(0);
    expect(b.listenerCount("close")).toBe(0);
  });
});
