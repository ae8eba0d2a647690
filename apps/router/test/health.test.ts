import { connectFakeNode, type FakeNode } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, onCleanup, SECRET, startTestRouter } from "./support.ts";

// GET /health names nobody without the admin token, and even the admin's view stays small
// however many nodes (and sessions) registered.

async function getHealth(url: string, authorization?: string) {
  const response = await fetch(
    `${url}/health`,
    authorization ? { headers: { Authorization: authorization } } : {},
  );
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as Record<string, unknown> };
}

async function nodeWithSessions(nodeUrl: string, nodeId: string, sessions: number): Promise<FakeNode> {
  const node = await connectFakeNode({ url: nodeUrl, secret: SECRET });
  onCleanup(() => node.kill());
  await node.register({
    node_id: nodeId,
    display_name: `Display ${nodeId}`,
    serves_users: ["ou_secret_user"],
    capabilities: ["shell"],
    sessions: Array.from({ length: sessions }, (_, i) => ({
      id: `s${i}`,
      agent: "claude",
      project: `private-project-${i}-${"p".repeat(40)}`,
      busy: false,
      user_id: "memory:ou_secret_user",
    })),
  });
  return node;
}

describe("GET /health", () => {
  it("without the admin token: status, version and uptime only — no node, user, session or capability", async () => {
    const t = await startTestRouter();
    await nodeWithSessions(t.nodeUrl, "home-pc", 2);
    for (const authorization of [
      undefined,
      "Bearer wrong-token-wrong-token",
      ADMIN_TOKEN,
      `Basic ${ADMIN_TOKEN}`,
    ]) {
      const { status, body, text } = await getHealth(t.url, authorization);
      expect(status).toBe(200);
      expect(Object.keys(body).sort()).toEqual(["status", "uptime_s", "version"]);
      expect(body).toMatchObject({ status: "ok", version: "0.1.0", uptime_s: expect.any(Number) });
      for (const leak of ["home-pc", "Display", "ou_secret_user", "private-project", "shell"])
        expect(text, `${authorization}: ${leak}`).not.toContain(leak);
    }
  });

  it("a router with no ADMIN_TOKEN has no full view over HTTP", async () => {
    const t = await startTestRouter({ ADMIN_TOKEN: undefined });
    await nodeWithSessions(t.nodeUrl, "home-pc", 1);
    const { body } = await getHealth(t.url, "Bearer undefined");
    expect(Object.keys(body).sort()).toEqual(["status", "uptime_s", "version"]);
  });

  it("the admin's view is bounded: 210 nodes of 200 sessions each give at most 200 nodes of 20 sessions", async () => {
    const t = await startTestRouter();
    for (let i = 0; i < 210; i++)
      await nodeWithSessions(t.nodeUrl, `junk-${String(i).padStart(3, "0")}`, 200);
    const { body, text } = await getHealth(t.url, `Bearer ${ADMIN_TOKEN}`);
    const nodes = body.nodes as Array<{ node_id: string; sessions: unknown[]; users: string[] }>;
    expect(nodes).toHaveLength(200);
    expect(body.more_nodes).toBe(10);
    expect(Math.max(...nodes.map((n) => n.sessions.length))).toBe(20);
    // A bare SERVES_USERS id is the only chat adapter's: stored qualified.
    expect(nodes[0]).toMatchObject({
      node_id: "junk-000",
      users: ["memory:ou_secret_user"],
      status: "online",
    });
    expect(text.length).toBeLessThan(2_000_000);
  });
});
