// A test helper: `harness chat` run in this process at a terminal of the test's making, which the
// test types into and reads. It waits on I/O alone (no timers), so that a test may move the chat's
// timers itself.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { setImmediate as tick } from "node:timers/promises";
import { chatCommand } from "./chat.ts";
import { renderScreen } from "../test-screen.ts";

export const COLUMNS = 60;

/** A chat of `userId` on `sessionId` at the server at `url`, at a terminal COLUMNS wide. */
export function terminalChat(t: { after(fn: () => unknown): void }, url: string, userId: string, sessionId: string) {
  let bytes = "";
  let writes = 0;
  // The terminal driver turns "\n" into "\r\n".
  const screen = Object.assign(new Writable({ write: (chunk, _encoding, done) => ((bytes += String(chunk).replace(/(?<!\r)\n/g, "\r\n")), writes++, done()) }), { columns: COLUMNS, isTTY: true });
  const stdin = Object.assign(new PassThrough({ encoding: "utf8" }), { isTTY: true, setRawMode: () => stdin });
  // The prompts typed are kept in a configuration directory of the test's, not the user's.
  const config = mkdtempSync(join(tmpdir(), "harness-chat-config-"));
  t.after(() => rmSync(config, { recursive: true, force: true }));
  const status = chatCommand({ kind: "chat", url, userId, sessionId }, { stdout: screen, stderr: screen, env: { NO_COLOR: "1", TERM: "xterm", CLAUDE_CONFIG_DIR: config }, stdin });
  t.after(() => stdin.end());
  return {
    status,
    type: (keys: string) => stdin.write(keys),
    end: () => stdin.end(),
    rows: () => renderScreen(bytes, COLUMNS),
    /** How many writes reached the terminal so far (it may show the screen between two). */
    writes: () => writes,
    /** Resolves once the terminal was written `pattern`. */
    async sees(pattern: RegExp): Promise<void> {
      for (const start = Date.now(); !pattern.test(bytes); await tick()) {
        if (Date.now() - start > 20_000) throw new Error(`the terminal never showed ${pattern}; it shows:\n${renderScreen(bytes, COLUMNS).join("\n")}`);
      }
    },
  };
}

/** Lets I/O go on for `ms` milliseconds with the timers stopped. */
export async function ioFor(ms: number): Promise<void> {
  for (const start = Date.now(); Date.now() - start < ms; ) await tick();
}
