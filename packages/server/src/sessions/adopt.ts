// A conversation kept elsewhere (a `harness run`'s transcript) made into a session of this server,
// so that a chat goes on with it: the session of that id holds it afterwards, its messages shown
// as the transcript tells them. A session of that id is replaced: its messages, marks, title and
// settings are kept where its transcript is where the one adopted begins (a run that went on with
// it), as its files and checkpoints are, which are the project's and the session's state.
import type { TranscriptMessage } from "@harness/protocol";
import { conversationFromTranscript, conversationOf } from "@harness/session";
import type { SessionRegistry } from "../registry.ts";
import type { SqliteDatabase } from "../sqlite/store.ts";

export type AdoptTranscript = (userId: string, sessionId: string, transcript: TranscriptMessage[]) => Promise<void>;

/** Throws an Error saying why when the session is open now (its clients would not see the change). */
export function adoptTranscript(db: SqliteDatabase, registry: SessionRegistry): AdoptTranscript {
  return async (userId, sessionId, transcript) => {
    if (registry.holds(userId, sessionId)) throw new Error(`session ${sessionId} is open: it cannot take another conversation now`);
    const stored = db.readSession(userId, sessionId);
    const base = stored && conversationOf(stored);
    const { state, marks } = conversationFromTranscript(transcript, base);
    const title = db.catalog.titleOf(userId, sessionId);
    if (stored) {
      const lastSeq = stored.batches.at(-1)?.seq ?? stored.snapshot.seq;
      await db.deleteSession(userId, sessionId, lastSeq);
    }
    if (!db.catalog.create(userId, sessionId, { ...(title !== undefined && { title }), snapshot: { state, seq: 0, transcript, marks } })) {
      throw new Error(`session ${sessionId} was made meanwhile`);
    }
  };
}
