// The conversation as a file, for hooks: Claude Code gives every hook a `transcript_path` to the
// session's transcript (JSON lines, one message each, `.message.content` holding what was said),
// and hooks that check what happened (a Stop hook looking for a test run, say) read it. Written
// when a hook is about to run, and then only what was added since.
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ModelMessage } from "@harness/llm";

export type TranscriptFile = {
  /** Brings the file up to `messages` and returns its path ("" when it cannot be written). */
  sync(messages: readonly ModelMessage[]): string;
};

export function transcriptFile(sessionId: string): TranscriptFile {
  // Private to this user: a conversation may hold anything the agent read.
  const dir = join(tmpdir(), `harness-transcripts-${process.getuid?.() ?? "user"}`);
  const file = join(dir, `${encodeURIComponent(sessionId)}.jsonl`);
  let written: readonly ModelMessage[] = [];
  let count = 0;
  const line = (message: ModelMessage) => `${JSON.stringify({ type: message.role, session_id: sessionId, message })}\n`;
  return {
    sync(messages) {
      try {
        // The same conversation grown: only the new messages. Otherwise (compacted, cleared, a new
        // run's copy) the file is written anew.
        const grown = messages.length >= count && count > 0 && messages[0] === written[0] && messages[count - 1] === written[count - 1];
        if (grown) {
          if (messages.length > count) appendFileSync(file, messages.slice(count).map(line).join(""));
        } else {
          mkdirSync(dir, { recursive: true, mode: 0o700 });
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
  };
}
