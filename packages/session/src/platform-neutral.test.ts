// The session core also runs where Node is absent (a Durable Object): its entry may pull in no Node
// module and use no Node-only global.
import { test } from "node:test";
import assert from "node:assert/strict";
import { builtinModules } from "node:module";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const builtins = new Set(builtinModules);
const importPattern = /(?:import|export)\s[^"';]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
const nodeGlobals = /\b(?:process|Buffer|require|__dirname|__filename)\s*[.(]/;

function sourcesOf(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const match of readFileSync(file, "utf8").matchAll(importPattern)) {
      const spec = match[1] ?? match[2];
      if (spec.startsWith(".")) visit(resolve(dirname(file), spec));
      else if (spec.startsWith("@harness/")) visit(fileURLToPath(import.meta.resolve(spec)));
    }
  };
  visit(entry);
  return [...seen];
}

test("@harness/session imports no Node module and uses no Node-only global", () => {
  const problems: string[] = [];
  for (const file of sourcesOf(fileURLToPath(import.meta.resolve("@harness/session")))) {
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(importPattern)) {
      const spec = match[1] ?? match[2];
      if (spec.startsWith("node:") || builtins.has(spec.split("/")[0])) problems.push(`${file}: imports ${spec}`);
    }
    const global = nodeGlobals.exec(text.replace(/\/\/.*$/gm, ""));
    if (global) problems.push(`${file}: uses ${global[0]}`);
  }
  assert.deepEqual(problems, []);
});
