import { inject } from "vitest";

// What the installed suite's global setup made once for the whole run (see global-setup.ts):
// the packed tarball, installed with `npm install -g --prefix <empty dir>` on the Node under test.

export interface Installation {
  /** npm's --prefix: bin/phonework and lib/node_modules/phonework. */
  prefix: string;
  /** The installed executable, <prefix>/bin/phonework (a `#!/usr/bin/env node` script). */
  bin: string;
  /** The Node under test (PHONEWORK_NODE, else the one running vitest) and its version ("22.23.3"). */
  node: string;
  nodeVersion: string;
  /** PATH for everything installed: its bin, the Node under test's directory, the system's. */
  path: string;
  /** The package's version, as its manifest says. */
  version: string;
  tarball: string;
  /** Everything npm printed (with --foreground-scripts, every install script's output too). */
  installLog: string;
  installSeconds: number;
  installedMb: number;
  /** Compilers and build tools that ran during the install (Linux x64: none may). */
  compilerCalls: string[];
  /** Whether this platform must install without compiling (prebuilt binaries for all native parts). */
  prebuiltOnly: boolean;
}

declare module "vitest" {
  export interface ProvidedContext {
    installation: Installation;
  }
}

export const installation = (): Installation => inject("installation");
