import { buildPhonework } from "./build-phonework.ts";

// `pnpm build`: see build-phonework.ts.
await buildPhonework();
