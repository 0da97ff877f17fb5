// The answers of the server's REST sessions API (see the server's sessions/api.ts), shared by the
// server that makes them and the client SDK that reads them.
import type { HarnessState } from "./wire.ts";

/** One of GET /sessions's list, the most recently active first. */
export type SessionSummary = {
  sessionId: string;
  /** The title given, else the first 60 characters of the first prompt that reached the model (not
   * of a built-in command answered without it); null for a session without either. */
  title: string | null;
  status: string;
  messageCount: number;
  /** ISO 8601. */
  createdAt: string;
  updatedAt: string;
};

/** GET /sessions/:id's answer: the session's state as it is now, a run under way included (what a
 * WebSocket client gets as its first frame, without the seq to go on from). */
export type SessionRead = {
  sessionId: string;
  state: HarnessState;
};

/** POST /sessions/:id/fork's answer. */
export type ForkResult = {
  sessionId: string;
  /** Of a fork at a user message: that message's text, which the fork leaves out, for the input. */
  prompt?: string;
  /** Why the fork's files are the source's as they are now rather than as they were at the fork point. */
  warning?: string;
};

/** GET /sessions/:id/files's answer: the paths of the session's workspace that start with the prefix
 * asked for, relative to it, folders ending in "/", sorted, at most 200; when none does, those that
 * hold its characters in order (`fuzzy`), shortest first, as a chat's own `@path` completion. */
export type SessionFiles = {
  paths: string[];
  /** Whether `paths` are fuzzy matches rather than paths starting with the prefix (absent from
   * servers older than the fuzzy match). */
  fuzzy?: boolean;
};
