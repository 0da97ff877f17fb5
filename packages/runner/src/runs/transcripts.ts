// The transcripts a runner keeps between runs, so that a session can name the one a run left
// (RunnerQuery `historyId`) instead of sending megabytes of conversation with every query. Each
// workspace keeps only its last; all of a process's workspaces share one memory budget, spent on the
// most recently used. Losing one is harmless: the query is refused with 412 and sent again whole.
import type { TranscriptMessage } from "@harness/protocol";

/** The transcripts of one workspace (its last one). */
export type TranscriptSlot = {
  /** Keeps `transcript` (about `bytes` of JSON) in place of the one kept before, and returns its id. */
  keep(transcript: TranscriptMessage[], bytes: number): string;
  /** The transcript kept under `id`, with its size; undefined when it is not (or no longer) kept. */
  get(id: string): { transcript: TranscriptMessage[]; bytes: number } | undefined;
  /** Lets go of what the slot keeps (the workspace closed). */
  clear(): void;
};

export type TranscriptMemory = {
  slot(): TranscriptSlot;
  /** JSON bytes kept, all slots together. */
  readonly bytes: number;
};

/** What a runner process keeps by default: transcripts as JSON would take 64 MiB (their objects
 * take a few times that in the heap). */
export const DEFAULT_TRANSCRIPT_BUDGET_BYTES = 64 * 1024 * 1024;

type Entry = { id: string; transcript: TranscriptMessage[]; bytes: number };

export function createTranscriptMemory(budgetBytes = DEFAULT_TRANSCRIPT_BUDGET_BYTES): TranscriptMemory {
  // Slots holding an entry, least recently used first (a Map keeps insertion order).
  const used = new Map<object, Entry>();
  let total = 0;

  const drop = (owner: object) => {
    const entry = used.get(owner);
    if (!entry) return;
    used.delete(owner);
    total -= entry.bytes;
  };
  const touch = (owner: object, entry: Entry) => {
    used.delete(owner);
    used.set(owner, entry);
  };

  return {
    slot() {
      const owner = {};
      return {
        keep(transcript, bytes) {
          drop(owner);
          const entry = { id: crypto.randomUUID(), transcript, bytes };
          used.set(owner, entry);
          total += bytes;
          // The newest always stays, even alone over the budget: the next query needs it.
          for (const [other] of used) {
            if (total <= budgetBytes || other === owner) break;
            drop(other);
          }
          return entry.id;
        },
        get(id) {
          const entry = used.get(owner);
          if (entry?.id !== id) return undefined;
          touch(owner, entry);
          return { transcript: entry.transcript, bytes: entry.bytes };
        },
        clear: () => drop(owner),
      };
    },
    get bytes() {
      return total;
    },
  };
}
