import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor as sharedWaitFor } from "@harness/test-utils";
import { parseIfCondition } from "./if-condition.ts";
import type { HookCondition } from "./types.ts";

/** A temporary project directory for hook tests, with helpers to write hook scripts into it. */
export type HookSandbox = {
  dir: string;
  /** Writes an executable bash script and returns the command that runs it. */
  script(name: string, body: string): string;
  path(name: string): string;
  read(name: string): string;
  remove(): void;
};

export function createHookSandbox(): HookSandbox {
  const dir = mkdtempSync(join(tmpdir(), "harness-hooks-"));
  return {
    dir,
    script(name, body) {
      const file = join(dir, name);
      writeFileSync(file, `#!/usr/bin/env bash\n${body}\n`, { mode: 0o755 });
      return `"$CLAUDE_PROJECT_DIR/${name}"`;
    },
    path: (name) => join(dir, name),
    read: (name) => readFileSync(join(dir, name), "utf8"),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Whether a process still runs; a zombie waiting to be reaped counts as gone. */
export function isRunning(pid: number): boolean {
  if (!existsSync("/proc/self")) {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Polls `condition` until it holds; throws after `timeoutMs`. */
export function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  return sharedWaitFor(condition, "the condition", { timeoutMs }).then(() => undefined);
}

/** `text` as a hook's parsed `if`, for hooks built in tests; throws on a text that is no rule. */
export function ifRule(text: string): HookCondition {
  const condition = parseIfCondition(text);
  if ("problem" in condition) throw new Error(condition.problem);
  return condition;
}
