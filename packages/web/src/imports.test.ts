// The web UI is browser code: it imports the client SDK and the protocol's browser entry, nothing
// else (DESIGN's dependency rule), and no Node module.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";

const importPattern = /(?:import|export)\s[^"';]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

test("the web UI's sources import only @harness/client, @harness/protocol's browser entry and each other", () => {
  const dir = new URL("./", import.meta.url);
  const found: string[] = [];
  for (const file of readdirSync(dir).filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"))) {
    for (const match of readFileSync(new URL(file, dir), "utf8").matchAll(importPattern)) {
      const spec = match[1] ?? match[2];
      const typeOnly = /^(?:import|export)\s+type\s/.test(match[0]);
      if (spec.startsWith("./") || spec === "@harness/client" || spec === "@harness/protocol/client-side" || (typeOnly && spec === "@harness/protocol")) continue;
      found.push(`${file}: ${spec}`);
    }
  }
  assert.deepEqual(found, []);
});
