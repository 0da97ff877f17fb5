// Which conversation a chat of its own (--local) goes on with, when --continue or --resume says:
// the directory's, wherever it is kept (see conversations.ts). A run's conversation (`harness -p`)
// becomes the session of its id in the chat's server first, or takes what the runs added since
// the chat last had it.
import { createSessionsApi } from "@harness/client";
import type { SessionSummary } from "@harness/protocol";
import type { HarnessServer } from "@harness/server";
import type { ChatCommand, ChatIO } from "./chat.ts";
import { pickFrom, type Picked } from "./pick.ts";
import { CONNECT_TIMEOUT_MS } from "./sessions.ts";
import { findConversation, recentConversations, recentRunsOf, type Place } from "../conversations.ts";

/** Makes a session of the chat's server hold a run's transcript. */
type Adopt = HarnessServer["adoptTranscript"];

/** Why `--resume ID` of a chat of its own names nothing kept in `place`; undefined when it does. */
export async function unknownResume(command: ChatCommand, place: Place): Promise<string | undefined> {
  if (!command.existing || command.sessionId === undefined) return undefined;
  const kept = await recentConversations(place, 5);
  if (kept.some((c) => c.id === command.sessionId)) return undefined;
  const found = await findConversation(place, command.sessionId, () => {});
  if (found.ok) return undefined;
  const latest = kept.map((c) => c.id);
  return `--resume: there is no session "${command.sessionId}" here; ${latest.length ? `the latest: ${latest.join(", ")}` : "there is none yet"} (-c goes on with the last one)`;
}

/** `command` naming the session to go on with, once it holds the conversation: that of --resume
 * ID (or --session ID), or with --continue the one of the directory changed last. */
export async function localConversation(command: ChatCommand, place: Place & { userId: string }, adopt: Adopt, io: ChatIO): Promise<ChatCommand> {
  const resume = command.sessionId;
  if (!command.continue && resume === undefined) return command;
  const warn = (message: string) => io.stderr.write(`harness: ${message}\n`);
  const found = await findConversation(place, resume, warn);
  // Nothing found: the chat says so, as ever (a new session for --continue, or of --session's id).
  if (!found.ok) return command;
  if (found.from === "run") {
    try {
      await adopt(place.userId, found.id, found.transcript);
    } catch (error) {
      warn(`cannot go on with the conversation of harness -p ${found.id} here: ${(error as Error).message}`);
      return command;
    }
  }
  return { ...command, continue: undefined, sessionId: found.id, ...(command.continue && { existing: true as const }) };
}

/** Most conversations listed to pick from, as the chat lists its sessions. */
const LISTED = 20;

/** `--resume` alone in a chat of its own: the conversation the user picks among the directory's,
 * its chats' sessions (from the chat's server at `url`) and its runs'. */
export async function pickLocal(place: Place & { userId: string }, server: { url: string; token: string }, io: ChatIO): Promise<Picked> {
  const chats = await createSessionsApi({ url: server.url, userId: place.userId, token: server.token }).list({ signal: AbortSignal.timeout(CONNECT_TIMEOUT_MS) });
  const listed = new Map<string, SessionSummary>(chats.map((chat) => [chat.sessionId, chat]));
  for (const run of recentRunsOf(place, LISTED)) {
    const chat = listed.get(run.id);
    const at = new Date(run.at).toISOString();
    // A conversation had both ways is listed once, as of its later copy (under its chat's title).
    if (chat && Date.parse(chat.updatedAt) >= run.at) continue;
    const title = run.firstPrompt.replace(/\s+/g, " ").trim().slice(0, 60) || null;
    listed.set(run.id, chat ? { ...chat, updatedAt: at } : { sessionId: run.id, title, status: "idle", messageCount: 0, createdAt: at, updatedAt: at });
  }
  const newestFirst = [...listed.values()].sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt));
  return pickFrom(newestFirst, { userId: place.userId, again: "harness" }, io);
}
