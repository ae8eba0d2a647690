import { createHash, randomBytes } from "node:crypto";

// Login codes and session tokens: random, shown once, stored only as their SHA-256, so a copy of
// router.db opens no console. 256 random bits leave nothing to guess, so a fast hash is enough.

export const newToken = (): string => randomBytes(32).toString("base64url");

export const tokenHash = (token: string): string => createHash("sha256").update(token).digest("hex");
