import { join } from "node:path";

// Paths of the test certificates in fixtures/tls (see its README).
const dir = join(import.meta.dirname, "..", "fixtures", "tls");

export const tlsFixture = (name: "ca.pem" | "router.pem" | "router.key" | "other.pem" | "other.key") =>
  join(dir, name);
