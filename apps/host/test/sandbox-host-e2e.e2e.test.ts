import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { waitFor, workerJson } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { channelOf, WorkspaceLayout } from "../src/workspace/workspace-layout.ts";
import { VISIBLE_TMP } from "./sandbox-support.ts";
import { startHostWithModel } from "./support.ts";

// The sandbox end to end on a running host (createHost, SANDBOX=on): a model talked into reading
// another user's chat, the host's keys and SSH key, and deleting a directory gets none of it
// through run_shell; nor does /shell. The same command still reads its own chat's log.

const ALICE = { user_id: "telegram:1", chat_id: "telegram:1", platform: "telegram" };
const BOB = { user_id: "telegram:2", chat_id: "telegram:2", platform: "telegram" };

describe("a real host runs the user's commands sandboxed", () => {
  it("run_shell and /shell: no other chat, no DATA_DIR, no ~/.ssh, no writes outside WORKING_DIR", async () => {
    const root = mkdtempSync(join(VISIBLE_TMP, "phonework-sandbox-e2e-"));
    const workingDir = join(root, "projects");
    const dataDir = join(root, "data");
    const home = join(root, "home");
    const outside = join(root, "outside");
    for (const d of [workingDir, join(home, ".ssh"), outside]) mkdirSync(d, { recursive: true });
    writeFileSync(join(home, ".ssh", "id_ed25519"), "SSH-PRIVATE-KEY");
    writeFileSync(join(outside, "precious.txt"), "PRECIOUS");
    const s = await startHostWithModel(
      { SANDBOX: "on", WORKING_DIR: workingDir, DATA_DIR: dataDir },
      { path: root, remove: () => rmSync(root, { recursive: true, force: true }) },
      { env: { ...process.env, HOME: home } },
    );
    let next = 0;
    const ask = async (from: typeof ALICE, text: string) => {
      const id = `r${++next}`;
      s.router.latest().send({ type: "forward", id, ...from, text });
      return String(
        (await s.router.latest().inbox.next("forward_response", (f) => f.id === id, 15_000)).text,
      );
    };
    const workspace = new WorkspaceLayout(join(dataDir, "host", "laptop", "workspace"));
    const log = (who: typeof ALICE) => workspace.channelLog(channelOf(who.platform, who.chat_id));

    s.model.script({ text: "Noted." });
    await ask(ALICE, "remember: my card PIN is 4321");
    await waitFor(() => existsSync(log(ALICE)) && readFileSync(log(ALICE), "utf8").includes("4321"));

    const attack = [
      `cat ${log(ALICE)}`,
      `ls ${workspace.channelsDir}/telegram`,
      `grep -c PIN ${log(BOB)}`,
      `cat ${join(dataDir, "host", "laptop", "state.db")} | wc -c`,
      `cat ${home}/.ssh/id_ed25519`,
      `r=rm; $r -rf ${outside}`,
      "echo end",
    ].join("; ");
    s.model.script({ toolCalls: [{ name: "run_shell", arguments: { command: attack } }] }, { text: "Done." });
    expect(await ask(BOB, "what is Alice's PIN? look around")).toBe("Done.");
    const [result = ""] = s.model.toolResults(s.model.requests.at(-1));
    expect(result).not.toContain("4321");
    expect(result).toContain(`${log(ALICE)}: No such file or directory`);
    expect(result).toMatch(/stdout:\n```\n2\n1\n0\nend\n```/); // only Bob's chat listed; his own log read (one PIN line: his question)
    expect(result).toContain("id_ed25519: No such file or directory");
    expect(result).toMatch(/Read-only file system/);
    expect(readFileSync(join(outside, "precious.txt"), "utf8")).toBe("PRECIOUS");

    const shell = await ask(
      BOB,
      `/shell cat ${log(ALICE)}; touch ${outside}/x; touch ${workingDir}/made-by-shell`,
    );
    expect(shell).toContain(`${log(ALICE)}: No such file or directory`);
    expect(shell).toContain("Read-only file system");
    expect(existsSync(join(workingDir, "made-by-shell"))).toBe(true);
  });

  it("a subtask from another node sees none of its user's chats here, whatever chat its frame names", async () => {
    const root = mkdtempSync(join(VISIBLE_TMP, "phonework-sandbox-e2e-"));
    const dataDir = join(root, "data");
    mkdirSync(join(root, "projects"));
    const s = await startHostWithModel(
      { SANDBOX: "on", WORKING_DIR: join(root, "projects"), DATA_DIR: dataDir },
      { path: root, remove: () => rmSync(root, { recursive: true, force: true }) },
    );
    const workspace = new WorkspaceLayout(join(dataDir, "host", "laptop", "workspace"));
    const log = workspace.channelLog(channelOf(ALICE.platform, ALICE.chat_id));
    s.model.script({ text: "Noted." });
    s.router.latest().send({ type: "forward", id: "r1", ...ALICE, text: "remember: my card PIN is 4321" });
    await waitFor(() => existsSync(log) && readFileSync(log, "utf8").includes("4321"));

    const look = `cat ${log}; ls ${workspace.channelsDir}/telegram; echo end`;
    s.model.script(
      { toolCalls: [{ name: "run_shell", arguments: { command: look } }] },
      { toolCalls: [{ name: "file_ops", arguments: { action: "read", path: log } }] },
      workerJson("looked"),
    );
    s.router.latest().send({
      type: "worker_task",
      task_id: "w-1",
      plan_id: "p-1",
      request_id: "r-9",
      ...ALICE,
      node: "laptop",
      from_node: "bob-pc",
      objective: "read the user's chats",
      context: "",
      skills: ["run_shell", "file_ops"],
      ttl_s: 60,
    });
    await s.router.latest().inbox.next("worker_result", () => true, 15_000);
    const worker = s.model.requests.at(-1);
    const [shell = "", file = ""] = s.model.toolResults(worker);
    expect(shell).not.toContain("4321");
    expect(shell).toContain(`${log}: No such file or directory`);
    expect(shell).toMatch(/stdout:\n```\nend\n```/); // not even the chat's name is listed
    expect(file).not.toContain("4321");
    expect(file).toMatch(/no such file or directory/i);
  });
});
