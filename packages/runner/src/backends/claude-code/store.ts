// What the claude-code backend remembers between runs, in one JSON file in the runner's state
// directory: for each session user message, the Claude Code checkpoint to rewind to; for each
// Claude Code session, the running usage totals and API time it reports (they are cumulative across resumes, so
// a run's own usage is the difference), and where a rewind cut its conversation.
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";

/** A point in a Claude Code conversation: the session and the uuid of its message. */
const ForkPointSchema = z.object({ sessionId: z.string(), at: z.string() });
export type ForkPoint = z.infer<typeof ForkPointSchema>;

const CheckpointSchema = z.object({
  /** The session's id of the user message the run answered. */
  userMessageId: z.string(),
  sessionId: z.string(),
  /** Claude Code's uuid of that message: files are rewound to how they were before it. */
  checkpointUuid: z.string(),
  cwd: z.string(),
  /** Files created by a Write during the run (absolute paths). */
  created: z.array(z.string()),
  /** Claude Code's uuid of the last message of the run's conversation. */
  lastUuid: z.string().optional(),
  /** Where the run's session was forked from, when the run started it by cutting another one. */
  origin: ForkPointSchema.optional(),
});
export type Checkpoint = z.infer<typeof CheckpointSchema>;

const TotalsSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number(),
  cacheWriteTokens: z.number(),
  costUsd: z.number(),
  /** Claude Code's running API time of the session (duration_api_ms); absent in earlier files. */
  apiMs: z.number().nonnegative().optional(),
});
export type Totals = z.infer<typeof TotalsSchema>;

const StoreSchema = z.object({
  checkpoints: z.array(CheckpointSchema),
  sessions: z.record(z.string(), TotalsSchema),
  /** Sessions whose later turns were rewound: the next resume of one forks the conversation at
   * the point given, or starts a new conversation (null) when nothing before the rewound turn is kept. */
  cuts: z.record(z.string(), ForkPointSchema.nullable()).default({}),
  /** Per model, Claude Code's price as a multiple of the harness's price list (rates.ts). */
  rates: z.record(z.string(), z.number().positive()).default({}),
});
export type StoreData = z.infer<typeof StoreSchema>;

/** Oldest checkpoints are forgotten beyond this many. */
export const MAX_CHECKPOINTS = 2000;
export const ZERO_TOTALS: Totals = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0, apiMs: 0 };

export function storePath(stateDir: string): string {
  return join(stateDir, "claude-code.json");
}

/** The stored data; an absent or unreadable file counts as empty (its loss costs rewinds, not runs). */
export async function readStore(stateDir: string): Promise<StoreData> {
  let text: string;
  try {
    text = await readFile(storePath(stateDir), "utf8");
  } catch {
    return emptyStore();
  }
  try {
    const parsed = StoreSchema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
  } catch {
    // not JSON
  }
  return emptyStore();
}

function emptyStore(): StoreData {
  return { checkpoints: [], sessions: {}, cuts: {}, rates: {} };
}

async function writeStore(stateDir: string, data: StoreData): Promise<void> {
  await mkdir(stateDir, { recursive: true });
  const path = storePath(stateDir);
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, JSON.stringify(data));
  await rename(temp, path);
}

/** Files a run's session totals and, when the run answered a session message, its checkpoint
 * (replacing an earlier one for the same message); `cutDone` names a session whose cut the run
 * carried out. */
export async function recordRun(stateDir: string, run: { sessionId: string; totals: Totals; checkpoint?: Checkpoint; cutDone?: string; rates?: Record<string, number> }): Promise<void> {
  const data = await readStore(stateDir);
  data.sessions[run.sessionId] = run.totals;
  if (run.rates) Object.assign(data.rates, run.rates);
  if (run.cutDone !== undefined) delete data.cuts[run.cutDone];
  if (run.checkpoint) {
    const id = run.checkpoint.userMessageId;
    data.checkpoints = data.checkpoints.filter((c) => c.userMessageId !== id);
    data.checkpoints.push(run.checkpoint);
    if (data.checkpoints.length > MAX_CHECKPOINTS) data.checkpoints.splice(0, data.checkpoints.length - MAX_CHECKPOINTS);
  }
  await writeStore(stateDir, data);
}

export type FoundCheckpoint = {
  checkpoint: Checkpoint;
  /** Files that did not exist before it: created by its run or a later run of the same session. */
  createdSince: Set<string>;
  /** Where the conversation is cut when the turns from this message on are rewound: the last
   * message of the session's run before it, else where the session was forked from, else null
   * (nothing before it is kept). */
  cutAt: ForkPoint | null;
};

export function findCheckpoint(data: StoreData, userMessageId: string): FoundCheckpoint | undefined {
  const index = data.checkpoints.findIndex((c) => c.userMessageId === userMessageId);
  if (index === -1) return undefined;
  const checkpoint = data.checkpoints[index];
  const sameSession = (c: Checkpoint) => c.sessionId === checkpoint.sessionId;
  const createdSince = new Set<string>();
  for (const later of data.checkpoints.slice(index).filter(sameSession)) for (const path of later.created) createdSince.add(path);
  const before = data.checkpoints.slice(0, index).filter(sameSession).at(-1);
  const cutAt = before?.lastUuid ? { sessionId: checkpoint.sessionId, at: before.lastUuid } : (checkpoint.origin ?? null);
  return { checkpoint, createdSince, cutAt };
}

/** Notes that the conversation of these sessions is to be cut at `at` (see StoreData.cuts). */
export async function recordCut(stateDir: string, sessionIds: Iterable<string>, at: ForkPoint | null): Promise<void> {
  const data = await readStore(stateDir);
  for (const sessionId of sessionIds) data.cuts[sessionId] = at;
  await writeStore(stateDir, data);
}

/** The tokens and cost of `now` beyond `before` (the API time is not among them). */
export function subtractTotals(now: Totals, before: Totals): Totals {
  const diff = (a: number, b: number) => Math.max(0, a - b);
  return {
    inputTokens: diff(now.inputTokens, before.inputTokens),
    outputTokens: diff(now.outputTokens, before.outputTokens),
    cacheReadTokens: diff(now.cacheReadTokens, before.cacheReadTokens),
    cacheWriteTokens: diff(now.cacheWriteTokens, before.cacheWriteTokens),
    // Cost is a float sum: round off the noise of the subtraction.
    costUsd: Math.max(0, Math.round((now.costUsd - before.costUsd) * 1e9) / 1e9),
  };
}
