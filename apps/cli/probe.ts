import { configKeyRows } from "../../scripts/config-docs.ts";
import { KEY_DOCS } from "../../scripts/config-docs/key-docs.ts";
const saved: Record<string, string> = {};
for (const [k, v] of Object.entries(KEY_DOCS) as any) { saved[k] = v.readmeDefault ?? v.default; }
const rows = configKeyRows();
for (const r of rows) {
  const readme = saved[r.key];
  const same = readme === r.default || readme?.replace(/`/g, "") === r.default.replace(/`/g, "");
  if (!same) console.log(`${r.key}\t computed: ${r.default}\t readme: ${readme}`);
}
