import fc from "fast-check";

// Shell text a confused or hostile model might send, as generators: the blocklist's destructive
// commands and ordinary ones, and the wrappers that hide a command inside another (shared by the
// blocklist's property tests and the sandbox's, which checks the same text reaches sh unchanged).

// What a piece of shell text may be wrapped by: a program wrapper (env, sudo, nice…) runs a
// program, so it can only take a simple command naming one; shell wrappers take any text.
export const PROGRAM = 0; // a simple command whose first word is a program on disk
export const SIMPLE = 1; // any simple command (a builtin, VAR= in front, or a find -exec: its \; ends any outer one)
export const TEXT = 2; // any shell text

export const DESTRUCTIVE: Array<[string, number]> = [
  ["rm -rf /", PROGRAM],
  ["rm -fr ~", PROGRAM],
  ["rm -rf /*", PROGRAM],
  ["rm -r -f /", PROGRAM],
  ["rm --recursive --force /", PROGRAM],
  ["rm -rf -- /", PROGRAM],
  ["/bin/rm -Rf $HOME", PROGRAM],
  ["\\rm -rf $\u007BHOME}", PROGRAM], // ${HOME}
  ["rm -rf ~/", PROGRAM],
  ["rm -r --no-preserve-root /", PROGRAM],
  ["mkfs.ext4 /dev/sda1", PROGRAM],
  ["format c:", PROGRAM],
  ["shutdown -h now", PROGRAM],
  ["reboot", PROGRAM],
  ["poweroff", PROGRAM],
  ["halt", PROGRAM],
  ["systemctl reboot", PROGRAM],
  ["init 0", PROGRAM],
  ["dd if=/dev/zero of=/dev/sda", PROGRAM],
  ["cat /dev/zero > /dev/nvme0n1", PROGRAM],
  ["chmod -R 777 /", PROGRAM],
  [":(){ :|:& };:", TEXT],
  ["bomb(){ bomb|bomb& };bomb", TEXT],
];

export const ORDINARY = [
  "rm -rf ./build",
  "rm -r ~/projects/old",
  "rm -rf /tmp/phonework-cache",
  "chmod -R 755 ./scripts",
  "ls -la /",
  "du -sh ~",
  "grep -r reboot logs",
  "systemctl status nginx",
  "echo done",
];

export interface Wrapper {
  name: string;
  wrap: (command: string) => string;
  /** The widest kind of text it can wrap, and the kind of text it makes. */
  takes: number;
  gives: number;
}

export const q = (command: string) => command.replace(/'/g, `'"'"'`); // inside single quotes
const wrapper = (name: string, takes: number, gives: number, wrap: (c: string) => string): Wrapper => ({
  name,
  wrap,
  takes,
  gives,
});

/**
 * The ways to hide a command that the issue names, and their cousins. Closing words go on a line
 * of their own, as in a script, so a here-document inside still finds its delimiter.
 */
export const WRAPPERS: Wrapper[] = [
  wrapper("sh -c", TEXT, PROGRAM, (c) => `sh -c '${q(c)}'`),
  wrapper("bash -lc", TEXT, PROGRAM, (c) => `bash -lc '${q(c)}'`),
  // A space after `$(`: `$((` would open an arithmetic expansion when a subshell comes next.
  wrapper("$(…)", TEXT, TEXT, (c) => `echo "$( ${c}\n)"`),
  // Inside backticks a nested `, a backslash and a $ are escaped, as a real script would.
  wrapper("backticks", TEXT, TEXT, (c) => `echo \`${c.replace(/[\\`$]/g, "\\$&")}\n\``),
  wrapper("env", PROGRAM, PROGRAM, (c) => `env ${c}`),
  wrapper("env VAR=…", PROGRAM, PROGRAM, (c) => `env -i PATH=/usr/bin:/bin ${c}`),
  wrapper("VAR=… prefix", SIMPLE, SIMPLE, (c) => `LC_ALL=C ${c}`),
  wrapper("find -exec", PROGRAM, SIMPLE, (c) => `find . -maxdepth 0 -exec ${c} \\;`),
  wrapper("find -exec sh -c", TEXT, SIMPLE, (c) => `find . -maxdepth 0 -exec sh -c '${q(c)}' \\;`),
  // A delimiter per nesting level, so an inner here-doc does not end the outer one.
  wrapper(
    "here-doc to a shell",
    TEXT,
    TEXT,
    (c) => `bash <<'EOF${c.length}'\necho start\n${c}\nEOF${c.length}`,
  ),
  wrapper("eval", TEXT, TEXT, (c) => `eval '${q(c)}'`),
  wrapper("sudo -u", PROGRAM, PROGRAM, (c) => `sudo -u root ${c}`),
  wrapper("nohup … &", PROGRAM, TEXT, (c) => `nohup ${c} &`),
  wrapper("timeout", PROGRAM, PROGRAM, (c) => `timeout 5s ${c}`),
  wrapper("nice -n", PROGRAM, PROGRAM, (c) => `nice -n 10 ${c}`),
  wrapper("xargs", PROGRAM, TEXT, (c) => `echo go | xargs -I% ${c}`),
  wrapper("subshell", TEXT, TEXT, (c) => `(cd /tmp && ${c}\n)`),
  wrapper("group", TEXT, TEXT, (c) => `{ true; ${c}\n}`),
  wrapper("if", TEXT, TEXT, (c) => `if true; then ${c}\nfi`),
  wrapper("after a newline", TEXT, TEXT, (c) => `echo hi\n${c}`),
  wrapper("line continuation", TEXT, TEXT, (c) => `true && \\\n${c}`),
  wrapper("ssh", TEXT, PROGRAM, (c) => `ssh localhost '${q(c)}'`),
  wrapper("su -c", TEXT, PROGRAM, (c) => `su -c '${q(c)}'`),
  wrapper("command", PROGRAM, SIMPLE, (c) => `command ${c}`),
  wrapper("exec", PROGRAM, SIMPLE, (c) => `exec ${c}`),
];

export const wrapped = (command: string, wraps: Wrapper[]) =>
  wraps.reduce((text, { wrap }) => wrap(text), command);
export const describeChain = (wraps: Wrapper[]) => wraps.map(({ name }) => name).join(" ∘ ");

/** One to three wrappers, innermost first, each able to take what the one before it gives. */
export function wrapChains(kind: number, among: Wrapper[] = WRAPPERS): fc.Arbitrary<Wrapper[]> {
  return fc.array(fc.constantFrom(...among), { minLength: 1, maxLength: 3 }).filter((wraps) => {
    let current = kind;
    for (const { takes, gives } of wraps) {
      if (current > takes) return false;
      current = gives;
    }
    return true;
  });
}
