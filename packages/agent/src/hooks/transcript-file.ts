// The conversation as a file, for hooks: Claude Code gives every hook a `transcript_path` to the
// session's transcript (JSON lines, one message each, `.message.content` holding what was said),
// and hooks that check what happened (a Stop hook looking for a test run, say) read it. Written
// when a hook is about to run, and then only what was added since; removed with the session.
import { appendFileSync, lstatSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ModelMessage } from "@harness/llm";
import { pidAlive } from "../process/pid-alive.ts";

export type TranscriptFile = {
  /** Brings the file up to `messages` and returns its path ("" when it cannot be written). */
  sync(messages: readonly ModelMessage[]): string;
  remove(): void;
};

let privateDir: string | undefined;

const PREFIX = "harness-transcripts-";

/** A directory this process made for itself (mkdtemp: a new name, mode 0700), so that nobody else
 * can read the conversations or plant a file or a link where one is written; removed at exit. Its
 * name holds the pid, so that the directories of processes killed before they could remove theirs
 * are swept away by the next one. */
function dir(): string {
  if (privateDir === undefined) {
    sweepDead();
    privateDir = mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
    const made = privateDir;
    process.once("exit", () => rmSync(made, { recursive: true, force: true }));
  }
  return privateDir;
}

/** Removes this user's transcript directories whose process is gone. */
function sweepDead(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return;
  }
  const uid = process.getuid?.();
  for (const name of names) {
    const pid = Number(/^harness-transcripts-(\d+)-/.exec(name)?.[1]);
    if (!pid || pid === process.pid || pidAlive(pid)) continue;
    const full = join(tmpdir(), name);
    try {
      const stats = lstatSync(full);
      if (stats.isDirectory() && (uid === undefined || stats.uid === uid)) rmSync(full, { recursive: true, force: true });
    } catch {
      // Gone meanwhile, or not ours to remove.
    }
  }
}

export function transcriptFile(sessionId: string): TranscriptFile {
  let file: string | undefined;
  let written: readonly ModelMessage[] = [];
  let count = 0;
  const line = (message: ModelMessage) => `${JSON.stringify({ type: message.role, session_id: sessionId, message })}\n`;
  return {
    sync(messages) {
      try {
        file ??= join(dir(), `${encodeURIComponent(sessionId)}.jsonl`);
        // The same conversation grown: only the new messages. Otherwise (compacted, cleared, a new
        // run's copy) the file is written anew.
        const grown = count > 0 && messages.length >= count && messages[0] === written[0] && messages[count - 1] === written[count - 1];
        if (grown) {
          if (messages.length > count) appendFileSync(file, messages.slice(count).map(line).join(""));
        } else {
          writeFileSync(file, messages.map(line).join(""), { mode: 0o600 });
        }
        written = messages.slice();
        count = messages.length;
        return file;
      } catch {
        count = 0;
        return "";
      }
    },
    remove() {
      if (file !== undefined) rmSync(file, { force: true });
      file = undefined;
      count = 0;
    },
  };
}
