// `harness --resume` / `harness chat --resume` with no id: the user's sessions on the server (for a
// local chat, the project's), newest first, each with its title and how long ago it was used. At a
// terminal the user picks one by its number; elsewhere nobody can, and the list says which ids there are.
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { createSessionsApi } from "@harness/client";
import type { SessionSummary } from "@harness/protocol";
import { oneLine, type Sink } from "../display/render.ts";

/** How long ago `iso` was, in the largest unit that fits ("just now", "5 min ago", "3 d ago"). */
export function age(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, (now - Date.parse(iso)) / 1000);
  if (!Number.isFinite(seconds) || seconds < 60) return "just now";
  for (const [unit, size] of [["d", 86_400], ["h", 3_600], ["min", 60]] as const) {
    if (seconds >= size) return `${Math.floor(seconds / size)} ${unit} ago`;
  }
  return "just now";
}

/** The sessions as numbered lines, newest first. */
export function sessionLines(sessions: readonly SessionSummary[], now = Date.now()): string[] {
  const width = String(sessions.length).length;
  return sessions.map((s, i) => `  ${String(i + 1).padStart(width)}  ${oneLine(s.title ?? "(no prompt yet)", 50)}  ·  ${age(s.updatedAt, now)}  ·  ${s.sessionId}`);
}

/** Most sessions listed to pick from. */
const LISTED = 20;

export type Picked = { sessionId: string } | { status: number; message?: string };

/** The session the user picks, or the status the chat ends with (and the line that says why). */
export async function pickSession(
  target: { url: string; userId: string; token: string | undefined; again: string },
  io: { stdin: Readable & { isTTY?: boolean }; stderr: Sink },
  signal: AbortSignal,
): Promise<Picked> {
  const sessions = await createSessionsApi({ url: target.url, userId: target.userId, ...(target.token && { token: target.token }) }).list({ signal });
  return pickFrom(sessions, target, io);
}

/** pickSession from `listed` (newest first), as the server's list or another of the same shape. */
export async function pickFrom(listed: readonly SessionSummary[], target: { userId: string; again: string }, io: { stdin: Readable & { isTTY?: boolean }; stderr: Sink }): Promise<Picked> {
  const sessions = listed.slice(0, LISTED);
  if (sessions.length === 0) return { status: 1, message: `--resume: there is no session to resume yet; ${target.again} "<prompt>" starts one` };
  io.stderr.write(`Sessions of ${target.userId}, the most recent first:\n${sessionLines(sessions).join("\n")}\n`);
  if (!io.stdin.isTTY) return { status: 2, message: `--resume: not at a terminal, nobody can pick: pass the id, as ${target.again} --resume ${sessions[0].sessionId}` };
  const lines = createInterface({ input: io.stdin, terminal: false });
  const answers = lines[Symbol.asyncIterator]();
  try {
    for (;;) {
      io.stderr.write(`Resume which? (1-${sessions.length}, Enter for none) `);
      const answer = await answers.next();
      const text = answer.done ? "" : answer.value.trim();
      if (text === "") return { status: 0 };
      const n = /^\d+$/.test(text) ? Number(text) : NaN;
      if (n >= 1 && n <= sessions.length) return { sessionId: sessions[n - 1].sessionId };
      io.stderr.write(`"${oneLine(text, 20)}" is not one of the numbers listed\n`);
    }
  } finally {
    lines.close();
  }
}
