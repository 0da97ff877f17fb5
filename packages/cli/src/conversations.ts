// The conversations of a directory, wherever they are kept: the runs' files (`harness -p`, see
// run/history.ts) and the sessions of its chats (`harness`, `harness -c`, see project-chats.ts).
// Both ways of working go on with the one changed last, whichever way it was had (as claude -c and
// claude -p -c do), and both take the ids of either: a conversation had both ways is kept under
// one id in both places, and the copy written last is the one that counts.
import { homedir } from "node:os";
import { resolve } from "node:path";
import type { ConversationSpent, TranscriptMessage } from "@harness/protocol";
import { defaultUser } from "./default-user.ts";
import { projectDataDir, projectPath } from "./project-dir.ts";
import { keptRevision, latestRunAt, loadRun, recentRuns, runExists, runsDir, runWrittenAt, type LoadedRun } from "./run/history.ts";
import { openProjectChats, type ProjectChats } from "./project-chats.ts";

/** Where to look: the directory (its real path), the home it is kept under, the chats' user. */
export type Place = { where: string; home?: string; env: NodeJS.ProcessEnv; userId?: string };

/** A conversation found: its id, its transcript, the revision of its run's file (undefined: none
 * yet) and, from a run's file, what it spent; `from`: where the copy that counts is kept. */
export type Found = { ok: true; from: "run" | "chat"; id: string; at: number; transcript: TranscriptMessage[]; revision?: number; spent?: ConversationSpent } | { ok: false; message: string };

const homeOf = (place: Place) => place.home || place.env.HOME || homedir();

/** The chats of `place`, or undefined when it has none; a store that cannot be read is said on `warn`. */
async function chatsOf(place: Place, warn: (message: string) => void): Promise<ProjectChats | undefined> {
  try {
    return await openProjectChats(projectDataDir(place.where, homeOf(place)), place.userId ?? defaultUser(place.env));
  } catch (error) {
    warn(`the chats of ${place.where} are left out: ${(error as Error).message}`);
    return undefined;
  }
}

/** The conversation `resume` names (undefined: the one changed last), or why there is none. */
export async function findConversation(place: Place, resume: string | undefined, warn: (message: string) => void): Promise<Found> {
  const dir = runsDir(homeOf(place), place.where);
  const run: { loaded: LoadedRun; at: number } | undefined =
    resume === undefined ? latestRunAt(dir, place.where) : runAt(dir, resume, place.where);
  const chats = await chatsOf(place, warn);
  try {
    const chat = chats?.list().find((c) => resume === undefined || c.id === resume);
    // A chat changed after the run's file (of the same conversation or another) is the one to go on with.
    if (chat && (!run || chat.at > run.at)) {
      const transcript = chats!.transcript(chat.id);
      if (transcript) return { ok: true, from: "chat", id: chat.id, at: chat.at, transcript, revision: keptRevision(dir, chat.id) };
    }
  } catch (error) {
    warn(`the chats of ${place.where} are left out: ${(error as Error).message}`);
  } finally {
    chats?.close();
  }
  if (run) {
    if (!run.loaded.ok) return run.loaded;
    const { id, transcript, revision, spent } = run.loaded.run;
    return { ok: true, from: "run", id, at: run.at, transcript, revision, ...(spent && { spent }) };
  }
  if (resume === undefined) return { ok: false, message: `there is no earlier conversation in ${place.where} to continue` };
  return { ok: false, message: await unknownMessage(place, resume) };
}

function runAt(dir: string, id: string, where: string): { loaded: LoadedRun; at: number } | undefined {
  const at = runWrittenAt(dir, id);
  return at === undefined ? undefined : { loaded: loadRun(dir, id, where), at };
}

/** The `count` runs' conversations of `place` written last, newest first, with their first prompts. */
export function recentRunsOf(place: Place, count: number): { id: string; at: number; firstPrompt: string }[] {
  return recentRuns(runsDir(homeOf(place), place.where), place.where, count);
}

/** The `count` conversations of `place` changed last, newest first, with their first prompts. */
export async function recentConversations(place: Place, count: number): Promise<{ id: string; at: number; firstPrompt: string }[]> {
  const runs = recentRuns(runsDir(homeOf(place), place.where), place.where, count);
  const chats = await chatsOf(place, () => {});
  let listed: { id: string; at: number; firstPrompt: string }[] = [];
  try {
    listed = chats?.list() ?? [];
  } catch {
    // Left out, as above.
  } finally {
    chats?.close();
  }
  // A conversation kept in both places is listed once, as of its later copy.
  const byId = new Map<string, { id: string; at: number; firstPrompt: string }>();
  for (const found of [...runs, ...listed]) {
    const known = byId.get(found.id);
    if (!known || found.at > known.at) byId.set(found.id, found);
  }
  return [...byId.values()].sort((a, b) => b.at - a.at).slice(0, count);
}

/** The shape of the ids runs are given (their session_id) and of the chats' own. */
const CONVERSATION_ID = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|chat-[\w-]+)$/i;

/** Why --resume `id` finds nothing, with the conversations that are kept for the directory (the
 * last few, each with its first prompt): the id given is often a prompt that --resume took for one. */
export async function unknownMessage(place: Place, id: string): Promise<string> {
  const kept = await recentConversations(place, 5);
  const line = (text: string) => {
    const one = text.replace(/\s+/g, " ").trim();
    return one.length > 60 ? `${one.slice(0, 59)}…` : one;
  };
  const ids = kept.length ? `; ids: ${kept.map((c) => `${c.id} (${JSON.stringify(line(c.firstPrompt))})`).join(", ")}` : "";
  const mistaken = CONVERSATION_ID.test(id) ? "" : "harness run --resume without an id is not supported: ";
  return `--resume: no conversation "${id}" in ${place.where}${kept.length ? "" : " (none is kept there)"}; ${mistaken}-c goes on with the last one${ids}`;
}

/** Why `harness run --resume ID` (in `base`, or its --cwd) cannot go on: no conversation of that id
 * is kept; undefined when one is (whether it can be read is the run's to find out). */
export async function resumeProblem(env: NodeJS.ProcessEnv, base: string, command: { cwd?: string; resume?: string }): Promise<string | undefined> {
  if (command.resume === undefined) return undefined;
  const place = { where: projectPath(resolve(base, command.cwd ?? ".")), env };
  if (runExists(runsDir(homeOf(place), place.where), command.resume)) return undefined;
  const chats = await chatsOf(place, () => {});
  try {
    if (chats?.list().some((c) => c.id === command.resume)) return undefined;
  } catch {
    // Said as a conversation not found.
  } finally {
    chats?.close();
  }
  return unknownMessage(place, command.resume);
}
