// The browser entries of protocol and client must not pull in any Node module.
import { test } from "node:test";
import assert from "node:assert/strict";
import { builtinModules } from "node:module";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const builtins = new Set(builtinModules);
const importPattern = /(?:import|export)\s[^"';]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function nodeImports(entry: string): string[] {
  const seen = new Set<string>();
  const found: string[] = [];
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const match of readFileSync(file, "utf8").matchAll(importPattern)) {
      const spec = match[1] ?? match[2];
      if (spec.startsWith("node:") || builtins.has(spec.split("/")[0])) found.push(`${file}: ${spec}`);
      else if (spec.startsWith(".")) visit(resolve(dirname(file), spec));
      else if (spec.startsWith("@harness/")) visit(fileURLToPath(import.meta.resolve(spec)));
    }
  };
  visit(entry);
  return found;
}

for (const pkg of ["@harness/protocol", "@harness/client"]) {
  test(`${pkg} imports no Node module`, () => {
    assert.deepEqual(nodeImports(fileURLToPath(import.meta.resolve(pkg))), []);
  });
}
