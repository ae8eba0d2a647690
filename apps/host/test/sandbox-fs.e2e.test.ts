import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findExecutable } from "../src/os/find-executable.ts";
import { runCommand } from "../src/os/process-tree.ts";
import { type Mount, orderMounts, Rank } from "../src/sandbox/mount-plan.ts";
import { blockedReason } from "../src/sandbox/shell-guard.ts";
import { executeShell, RunShellArgs } from "../src/shell/run-shell.ts";
import { channelOf } from "../src/workspace/workspace-layout.ts";
import { ALICE, BOB, sandboxRig, VISIBLE_TMP } from "./sandbox-support.ts";
import { onCleanup } from "./support.ts";

// The sandbox's filesystem policy against real bwrap and real commands, tried the way an attacker
// would: writes outside WORKING_DIR, the blocklist's known gaps aimed at a directory outside it,
// secrets in DATA_DIR and HOME, and another chat's log. Each attack has a legitimate twin that
// must still work.

const NO_SUCH = /No such file or directory/;
const READ_ONLY = /read-only file system/i;
const intact = (outside: string) =>
  readFileSync(join(outside, "keep", "precious.txt"), "utf8") === "PRECIOUS";
/** Interpreters on this machine that can delete a directory tree, with the code to do it. */
const interpreters = (dir: string) =>
  [
    ["python3", `python3 -c "import shutil; shutil.rmtree('${dir}')"`],
    ["perl", `perl -MFile::Path=remove_tree -e 'remove_tree("${dir}")'`],
    ["node", `${process.execPath} -e 'require("fs").rmSync("${dir}", { recursive: true, force: true })'`],
  ].filter(([name]) => name === "node" || findExecutable(name ?? "", process.env.PATH));

describe("sandbox: writing", () => {
  it("fails outside WORKING_DIR (/etc, HOME, the real home) and works inside it and in the chat's scratch/", async () => {
    const rig = sandboxRig();
    const marker = `phonework-sandbox-${process.pid}-${Date.now()}`;
    const etc = await rig.run(`touch /etc/${marker}`);
    expect(etc.stderr).toMatch(READ_ONLY);
    expect(etc.exitCode).not.toBe(0);
    expect(existsSync(`/etc/${marker}`)).toBe(false);

    const python = findExecutable("python3", process.env.PATH) ? "python3" : process.execPath;
    const writeTo = (path: string) =>
      python === "python3"
        ? `python3 -c "open('${path}', 'w').write('x')"`
        : `${python} -e 'require("fs").writeFileSync("${path}", "x")'`;
    const realHome = join(homedir(), marker);
    onCleanup(() => rmSync(realHome, { force: true }));
    for (const path of [join(rig.home, marker), realHome]) {
      const result = await rig.run(writeTo(path));
      expect(result.stderr, path).toMatch(READ_ONLY);
      expect(existsSync(path), path).toBe(false);
    }

    const inside = await rig.run(
      `touch made-here && mkdir -p app/build && ${writeTo(join(rig.workingDir, "app", "build", "out.txt"))}`,
    );
    expect(inside.exitCode).toBe(0);
    expect(existsSync(join(rig.workingDir, "made-here"))).toBe(true);
    expect(readFileSync(join(rig.workingDir, "app", "build", "out.txt"), "utf8")).toBe("x");
    const scratch = rig.workspace.channelScratch(channelOf(ALICE.platform, ALICE.chatId));
    expect((await rig.run(`echo notes > ${scratch}/notes.txt`)).exitCode).toBe(0);
    expect(readFileSync(join(scratch, "notes.txt"), "utf8")).toBe("notes\n");
  });

  it("cannot be regained: no remount writable, not even as root or in a namespace of its own", async () => {
    const rig = sandboxRig();
    const target = join(rig.outside, "regained");
    const result = await rig.run(
      [
        `mount -o remount,rw,bind / ; touch ${target}`,
        `mount -o remount,rw,bind ${rig.outside} ; touch ${target}`,
        `unshare -Urm sh -c 'mount -o remount,rw,bind / ; touch ${target}'`,
        `mount -t tmpfs none ${rig.outside} && echo mounted`,
      ].join("\n"),
    );
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(READ_ONLY);
    expect(existsSync(target)).toBe(false);
    expect(intact(rig.outside)).toBe(true);
  });

  it("gives each command its own /tmp: nothing written there outlives it, nothing of the host's is seen", async () => {
    const rig = sandboxRig();
    const hostTmp = mkdtempSync(join(tmpdir(), "phonework-host-tmp-"));
    onCleanup(() => rmSync(hostTmp, { recursive: true, force: true }));
    writeFileSync(join(hostTmp, "token"), "HOST-TMP-TOKEN");
    const name = `phonework-sandbox-tmp-${process.pid}`;
    const result = await rig.run(`echo mine > /tmp/${name} && cat /tmp/${name}; cat ${hostTmp}/token`);
    expect(result.stdout).toBe("mine\n");
    expect(result.stderr).toMatch(NO_SUCH);
    expect(existsSync(join(tmpdir(), name))).toBe(false);
  });

  it("the README's gap examples get past the blocklist and still leave a directory outside WORKING_DIR intact", async () => {
    const rig = sandboxRig();
    const attacks = (target: string) => [
      `r=rm; $r -rf ${target}`,
      `echo ${Buffer.from(`rm -rf ${target}\n`).toString("base64")} | base64 -d | sh`,
      `rm -rf $(echo ${target})`,
      `printf 'rm -rf ${target}\\n' > wipe.sh && sh wipe.sh`,
      ...interpreters(target).map(([, code]) => code ?? ""),
    ];
    for (const command of attacks(rig.outside)) {
      expect(blockedReason(command), command).toBeUndefined(); // the blocklist cannot see these
      const out = await executeShell(
        rig.workingDir,
        RunShellArgs.parse({ command }),
        new AbortController().signal,
        rig.sandbox.forScope(ALICE),
      );
      expect(out, command).toMatch(READ_ONLY);
      expect(intact(rig.outside), command).toBe(true);
    }
    // Not a vacuous pass: unsandboxed, the same commands destroy a copy of it.
    const copy = join(rig.workingDir, "..", "copy");
    for (const command of attacks(copy)) {
      cpSync(rig.outside, copy, { recursive: true });
      await runCommand(command, { cwd: rig.workingDir, timeoutMs: 10_000, maxOutputChars: 8000 });
      expect(existsSync(join(copy, "keep")), command).toBe(false);
    }
  });
});

describe("sandbox: what a command cannot see", () => {
  it("DATA_DIR's files, ~/.ssh and ~/.aws are not there; the workspace is, read-only", async () => {
    const rig = sandboxRig();
    const { dataKey, sshKey, awsCredentials } = rig.secrets;
    const read = await rig.run(
      `cat ${dataKey}; cat ${sshKey}; cat ${awsCredentials}; ls -A ${rig.home}/.ssh ${rig.home}/.aws`,
    );
    expect(read.stdout).toBe(`${rig.home}/.aws:\n\n${rig.home}/.ssh:\n`); // empty directories
    expect(read.stderr.match(/No such file or directory/g)).toHaveLength(3);
    // Searching for them finds nothing either: DATA_DIR holds only the way to the workspace.
    const search = await rig.run(
      `grep -rl 'KEY\\|SECRET' ${rig.dataDir} ${rig.home}; find ${rig.dataDir} -maxdepth 3 | sort`,
    );
    expect(search.stdout).not.toMatch(/identity\.json|state\.db|id_ed25519|credentials/);
    expect(search.stdout).toContain(rig.workspace.root);

    const memory = await rig.run(`cat ${rig.workspace.memoryFile}; echo more >> ${rig.workspace.memoryFile}`);
    expect(memory.stdout).toBe("WORKSPACE-MEMORY\n");
    expect(memory.stderr).toMatch(READ_ONLY);
    expect(readFileSync(rig.workspace.memoryFile, "utf8")).toBe("WORKSPACE-MEMORY\n");
  });

  it("nor are the user's D-Bus and agent sockets ($XDG_RUNTIME_DIR): `systemd-run --user` would run outside", async () => {
    const runtimeDir = mkdtempSync(join(VISIBLE_TMP, "phonework-run-user-"));
    onCleanup(() => rmSync(runtimeDir, { recursive: true, force: true }));
    writeFileSync(join(runtimeDir, "bus"), "");
    mkdirSync(join(runtimeDir, "gnupg"));
    const rig = sandboxRig({}, { XDG_RUNTIME_DIR: runtimeDir });
    const result = await rig.run(`ls -A ${runtimeDir}`);
    expect(result.stdout).toBe("");
    expect(result.exitCode).toBe(0);
  });

  it("the host's secrets are not in a command's environment: by config key, by name, by value", () => {
    const env = {
      ...process.env,
      OPENAI_API_KEY: "sk-host-key-123",
      ROUTER_SECRET: "sandbox-test-secret",
      GITHUB_TOKEN: "gh-token-456",
      PHONEWORK_CONFIG: "/etc/phonework/host.yaml",
      COPY_OF_THE_KEY: "sk-host-key-123",
      PHONEWORK_VISIBLE_NOT: "x",
      EDITOR: "vim",
    };
    const rig = sandboxRig({ OPENAI_API_KEY: "sk-host-key-123", METASO_API_KEY: "metaso-key-789" }, env);
    const [bwrap = "", ...args] = rig.sandbox.forScope(ALICE)(["/bin/sh", "-c", "env"], rig.workingDir);
    const out = spawnSync(bwrap, args, {
      env: { ...env, METASO_API_KEY: "metaso-key-789" },
      encoding: "utf8",
    });
    expect(out.stdout).toContain("EDITOR=vim");
    expect(out.stdout).not.toMatch(
      /sk-host-key-123|metaso-key-789|sandbox-test-secret|gh-token-456|PHONEWORK_|COPY_OF_THE_KEY/,
    );
  });

  it("SANDBOX_HIDE hides a directory and a file, SANDBOX_WRITABLE opens a path; the more specific rule wins", async () => {
    const rig = sandboxRig(({ workingDir, outside }) => ({
      SANDBOX_WRITABLE: join(outside, "cache"),
      SANDBOX_HIDE: `${join(workingDir, "app", ".env")}, ${join(workingDir, "app", "private")}, ${outside}/keep`,
    }));
    const envFile = join(rig.workingDir, "app", ".env");
    writeFileSync(envFile, "API_TOKEN=hunter2");
    mkdirSync(join(rig.workingDir, "app", "private"));
    writeFileSync(join(rig.workingDir, "app", "private", "diary.txt"), "DIARY");
    mkdirSync(join(rig.outside, "cache"));
    const result = await rig.run(
      `cat app/.env; cat app/private/diary.txt; cat ${rig.outside}/keep/precious.txt; echo cached > ${rig.outside}/cache/c; echo no > ${rig.outside}/x`,
    );
    expect(result.stdout).toBe(""); // the hidden file reads as empty
    expect(result.stderr.match(/No such file or directory/g)).toHaveLength(2);
    expect(result.stderr).toMatch(READ_ONLY); // outside/x: only outside/cache was opened
    expect(readFileSync(join(rig.outside, "cache", "c"), "utf8")).toBe("cached\n");
    expect(existsSync(join(rig.outside, "x"))).toBe(false);
    expect(readFileSync(envFile, "utf8")).toBe("API_TOKEN=hunter2");
  });
});

describe("sandbox: chats (each user sees only the chats they have written in)", () => {
  it("another chat's log.jsonl is invisible to a user without access and visible once they have it", async () => {
    const rig = sandboxRig();
    const channels = join(rig.workspace.channelsDir, "telegram");
    const look = `cat ${rig.logs.alice}; cat ${rig.logs.bob}; ls ${channels}; grep -rh PRIVATE ${rig.workspace.root}`;

    const alice = await rig.run(look, ALICE);
    expect(alice.stdout).toBe('{"text":"ALICE-PRIVATE"}\n1\n{"text":"ALICE-PRIVATE"}\n'); // Bob's chat is not even listed
    expect(alice.stderr).toContain(`${rig.logs.bob}: No such file or directory`);
    const bob = await rig.run(look, BOB);
    expect(bob.stdout).not.toContain("ALICE-PRIVATE");
    expect(bob.stdout).toContain("BOB-PRIVATE");

    rig.access.grant(ALICE.userId, channelOf(BOB.platform, BOB.chatId)); // Alice wrote in Bob's chat
    const granted = await rig.run(look, ALICE);
    expect(granted.stdout).toContain("ALICE-PRIVATE");
    expect(granted.stdout).toContain("BOB-PRIVATE");
    expect((await rig.run(look, BOB)).stdout).not.toContain("ALICE-PRIVATE"); // not the other way round

    const tamper = await rig.run(`echo forged >> ${rig.logs.alice}`, ALICE);
    expect(tamper.stderr).toMatch(READ_ONLY);
  });

  it("a worker writes in its own scratch directory, not in the chat's", async () => {
    const rig = sandboxRig();
    const workerScratch = mkdtempSync(join(tmpdir(), "phonework-worker-test-"));
    onCleanup(() => rmSync(workerScratch, { recursive: true, force: true }));
    const chatScratch = rig.workspace.channelScratch(channelOf(ALICE.platform, ALICE.chatId));
    mkdirSync(chatScratch, { recursive: true });
    const result = await rig.run(`echo w > ${workerScratch}/out; echo c > ${chatScratch}/out`, {
      ...ALICE,
      scratchDir: workerScratch,
    });
    expect(readFileSync(join(workerScratch, "out"), "utf8")).toBe("w\n");
    expect(result.stderr).toMatch(READ_ONLY);
    expect(existsSync(join(chatScratch, "out"))).toBe(false);
  });
});

describe("sandbox: which rule holds", () => {
  const mount = (path: string, how: Mount["how"], rank: number): Mount => ({ path, how, rank });

  it("parents before children, so the deeper rule holds; for one path, the higher rank", () => {
    const plan = orderMounts([
      mount("/", "ro", Rank.base),
      mount("/home/u/.phonework/host/n/workspace", "ro", Rank.reexpose),
      mount("/home/u/.phonework", "empty-dir", Rank.builtInHide),
      mount("/home/u", "rw", Rank.writable), // WORKING_DIR: the home directory
      mount("/srv/data", "empty-dir", Rank.builtInHide), // DATA_DIR …
      mount("/srv/data", "rw", Rank.writable), // … that is also WORKING_DIR: what you made writable holds
      mount("/home/u/.ssh", "rw", Rank.writable),
      mount("/home/u/.ssh", "empty-dir", Rank.userHide), // SANDBOX_HIDE over SANDBOX_WRITABLE
    ]);
    expect(plan.map(({ path, how }) => `${how} ${path}`)).toEqual([
      "ro /",
      "rw /home/u",
      "rw /srv/data",
      "empty-dir /home/u/.phonework",
      "empty-dir /home/u/.ssh",
      "ro /home/u/.phonework/host/n/workspace",
    ]);
  });
});
