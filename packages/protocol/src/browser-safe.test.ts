// The browser entries of protocol and client must not pull in any Node module.
import { test } from "node:test";
import assert from "node:assert/strict";
import { builtinModules } from "node:module";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const builtins = new Set(builtinModules);
const importPattern = /(?:import|export)\s[^"';]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** The modules outside this repository that `entry` loads at run time (`import type` loads nothing). */
function outsideImports(entry: string): string[] {
  const seen = new Set<string>();
  const found: string[] = [];
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const match of readFileSync(file, "utf8").matchAll(importPattern)) {
      if (/^(?:import|export)\s+type\s/.test(match[0])) continue;
      const spec = match[1] ?? match[2];
      if (spec.startsWith(".")) visit(resolve(dirname(file), spec));
      else if (spec.startsWith("@harness/")) visit(fileURLToPath(import.meta.resolve(spec)));
      else found.push(`${file}: ${spec}`);
    }
  };
  visit(entry);
  return found;
}

const isNodeModule = (found: string) => {
  const spec = found.slice(found.lastIndexOf(": ") + 2);
  return spec.startsWith("node:") || builtins.has(spec.split("/")[0]);
};

for (const pkg of ["@harness/protocol", "@harness/client"]) {
  test(`${pkg} imports no Node module`, () => {
    assert.deepEqual(outsideImports(fileURLToPath(import.meta.resolve(pkg))).filter(isNodeModule), []);
  });
}

// The schemas (zod) are the server's business: a browser bundle of the client stays a few kilobytes.
test("@harness/client loads nothing from outside the repository, zod included", () => {
  assert.deepEqual(outsideImports(fileURLToPath(import.meta.resolve("@harness/client"))), []);
});
