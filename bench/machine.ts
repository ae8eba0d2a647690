import { readFileSync } from "node:fs";
import os from "node:os";

// What the figures were measured on; they mean little without it.

export interface Machine {
  cpuModel: string;
  cores: number;
  ramGiB: number;
  node: string;
  os: string;
}

export function describeMachine(): Machine {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? "unknown",
    cores: cpus.length,
    ramGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    os: `${distribution() ?? os.type()} (${os.platform()} ${os.release()}, ${os.arch()})`,
  };
}

/** The Linux distribution's name, which node:os does not give; undefined elsewhere. */
function distribution(): string | undefined {
  try {
    return /^PRETTY_NAME="?([^"\n]+)"?$/m.exec(readFileSync("/etc/os-release", "utf8"))?.[1];
  } catch {
    return undefined;
  }
}
