// `/resume` and `/rename` in `harness chat`, through the server's REST API (the user's sessions
// only: the server answers for no other's). /resume lists the sessions as `--resume` does and goes
// on in the one named, by its number in the list or its id (or its title, when one session has
// it); /rename names the chat's session, as every list of the sessions then shows it.
import { SessionsApiError, type SessionsApi } from "@harness/client";
import type { SessionSummary } from "@harness/protocol";
import { sessionLines } from "./pick.ts";
import { CONNECT_TIMEOUT_MS } from "./sessions.ts";
import { oneLine } from "../display/render.ts";

/** Most sessions /resume lists, as --resume does. */
const LISTED = 20;

export type ChatSessionsOptions = {
  api: SessionsApi;
  userId: string;
  /** Where the sessions are, as the chat's first line says it ("at URL", "in DIR"). */
  where: string;
  /** The session the chat is in now. */
  current(): string;
  note(text: string, tone?: "info" | "error"): void;
  /** Moves the chat to session `sessionId` (its conversation shown, the next prompts going to it);
   * rejects when it cannot be reached, the chat back in the session it was in. */
  switchTo(sessionId: string): Promise<void>;
};

export type ChatSessions = {
  /** Acts on `/resume arg` or `/rename arg` (`arg` trimmed); resolves once it is done. */
  act(verb: "resume" | "rename", arg: string): Promise<void>;
};

export function chatSessions(o: ChatSessionsOptions): ChatSessions {
  /** The list /resume showed last: the numbers it showed pick from it. */
  let shown: SessionSummary[] | undefined;
  const fail = (verb: string, message: string) => o.note(`✗ /${verb}: ${message}`, "error");
  const list = async () => (await o.api.list({ signal: AbortSignal.timeout(CONNECT_TIMEOUT_MS) })).slice(0, LISTED);

  const rename = async (title: string) => {
    const sessionId = o.current();
    if (!title) {
      const named = (await list()).find((s) => s.sessionId === sessionId)?.title;
      return o.note(named ? `(session ${sessionId} is titled "${oneLine(named, 100)}"; /rename TITLE renames it)` : `(session ${sessionId} has no title yet: /rename TITLE names it)`);
    }
    const renamed = await o.api.rename(sessionId, title, { signal: AbortSignal.timeout(CONNECT_TIMEOUT_MS) });
    shown = undefined;
    o.note(`(session ${sessionId} is now titled "${oneLine(renamed.title, 100)}")`);
  };

  const resume = async (which: string) => {
    if (!which) {
      const sessions = await list();
      if (sessions.length === 0) return o.note("(there is no session to resume yet)");
      shown = sessions;
      const lines = sessionLines(sessions).map((line, i) => (sessions[i].sessionId === o.current() ? `${line}  (this chat)` : line));
      return o.note([`Sessions of ${o.userId}, the most recent first:`, ...lines, "/resume N switches to one of them (or /resume ID)"].join("\n"));
    }
    const target = await pick(which);
    if ("error" in target) return fail("resume", target.error);
    if (target.sessionId === o.current()) return o.note(`(this chat is in session ${target.sessionId} already)`);
    o.note(`session ${target.sessionId} of ${o.userId} ${o.where}`);
    shown = undefined;
    try {
      await o.switchTo(target.sessionId);
    } catch (error) {
      fail("resume", `cannot open session ${target.sessionId} (the chat stays in session ${o.current()}): ${(error as Error).message}`);
    }
  };

  /** The session `which` names: a number in the list shown last (or the list as it is now), an id, or a title only one session has. */
  const pick = async (which: string): Promise<{ sessionId: string } | { error: string }> => {
    if (/^\d+$/.test(which)) {
      const sessions = shown ?? (await list());
      const n = Number(which);
      if (sessions.length === 0) return { error: "there is no session to resume yet" };
      if (n < 1 || n > sessions.length) return { error: `there is no session ${which} in the list: /resume lists them, from 1 to ${sessions.length}` };
      return sessions[n - 1];
    }
    const sessions = await o.api.list({ signal: AbortSignal.timeout(CONNECT_TIMEOUT_MS) });
    const byId = sessions.find((s) => s.sessionId === which);
    if (byId) return byId;
    const titled = sessions.filter((s) => s.title === which);
    if (titled.length === 1) return titled[0];
    if (titled.length > 1) return { error: `${titled.length} sessions are titled "${oneLine(which, 50)}": /resume lists them, and /resume N picks one` };
    return { error: `there is no session "${oneLine(which, 50)}" of ${o.userId}: /resume lists them` };
  };

  return {
    async act(verb, arg) {
      try {
        await (verb === "resume" ? resume(arg) : rename(arg));
      } catch (error) {
        // The server's word on a bad title is the message itself.
        const message = error instanceof SessionsApiError && error.status === 400 ? error.message.replace(/^.*? answered 400: /, "") : (error as Error).message;
        fail(verb, message);
      }
    },
  };
}
