// The conversations of `harness run`, kept so that a later run, or a chat, can go on with one
// (--continue, or --resume ID: see conversations.ts), as Claude Code keeps its own: one file per
// conversation, under ~/.harness/runs/<the project directory as a name>/<id>.json. A file is
// written whole (to a temporary name, then renamed) after every run, so a run that dies leaves the
// one before intact.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createHash, randomUUID } from "node:crypto";
import { join } from "node:path";
import type { ConversationSpent, TranscriptMessage } from "@harness/protocol";
import { isJsonObject } from "@harness/agent/json-text";
import { withLockSync } from "@harness/agent/lock-file";
import { RUN_ID } from "../args.ts";

export type StoredRun = {
  id: string;
  cwd: string;
  transcript: TranscriptMessage[];
  /** How many runs have written it (absent in files of earlier versions: 1). */
  revision: number;
  /** What its runs have spent, as /cost counts it (absent in files of earlier versions). */
  spent?: ConversationSpent;
};


/** Where the conversations of runs in `cwd` are kept: the path as a name, shortened (with a hash
 * of the whole) where it would pass the file system's limit on a name. */
export function runsDir(home: string, cwd: string): string {
  const name = cwd.replace(/[^A-Za-z0-9]/g, "-");
  const short = name.length <= MAX_NAME ? name : `${name.slice(0, MAX_NAME - 17)}-${createHash("sha256").update(cwd).digest("hex").slice(0, 16)}`;
  return join(home, ".harness", "runs", short);
}

/** Linux's limit on a file name, in bytes (the name is ASCII). */
const MAX_NAME = 255;

export type LoadedRun = { ok: true; run: StoredRun } | { ok: false; message: string };

/** The conversation last written for `cwd`, with when (ms since the epoch), or undefined when there
 * is none. Two directories may map to one name: it is the newest file that says it is this
 * directory's, or that cannot say (its problem is then the answer, rather than an older
 * conversation going on). */
export function latestRunAt(dir: string, cwd: string): { loaded: LoadedRun; at: number } | undefined {
  for (const { id, at } of newestFirst(dir)) {
    const read = readRun(join(dir, `${id}.json`), id, cwd);
    const owner = "data" in read ? read.data?.cwd : undefined;
    if (typeof owner === "string" && owner !== cwd) continue;
    return { loaded: checked(read, id, cwd), at };
  }
  return undefined;
}

/** When conversation `id` was last written (ms since the epoch), or undefined when it is not kept. */
export function runWrittenAt(dir: string, id: string): number | undefined {
  if (!RUN_ID.test(id)) return undefined;
  try {
    return statSync(join(dir, `${id}.json`)).mtimeMs;
  } catch {
    return undefined;
  }
}

/** The revision of conversation `id` as kept now, or undefined when it is not. */
export function keptRevision(dir: string, id: string): number | undefined {
  return RUN_ID.test(id) ? revisionOf(join(dir, `${id}.json`)) : undefined;
}

/** The stored conversation `id` of `cwd`, or why it cannot be had (a message naming the file). */
export function loadRun(dir: string, id: string, cwd: string): LoadedRun {
  if (!RUN_ID.test(id)) return { ok: false, message: `"${id}" is not the id of a run` };
  if (!existsSync(join(dir, `${id}.json`))) return { ok: false, message: `no run "${id}" in ${cwd}` };
  return checked(readRun(join(dir, `${id}.json`), id, cwd), id, cwd);
}

/** The `count` conversations of `cwd` written last, newest first, with when and their first prompts. */
export function recentRuns(dir: string, cwd: string, count: number): { id: string; at: number; firstPrompt: string }[] {
  const found: { id: string; at: number; firstPrompt: string }[] = [];
  for (const { id, at } of newestFirst(dir)) {
    const read = checked(readRun(join(dir, `${id}.json`), id, cwd), id, cwd);
    if (!read.ok) continue;
    const first = read.run.transcript[0]?.content;
    const text = typeof first === "string" ? first : (first ?? []).map((b) => ("text" in b && typeof b.text === "string" ? b.text : "")).join("");
    found.push({ id, at, firstPrompt: text });
    if (found.length === count) break;
  }
  return found;
}

/** The ids of the conversations kept in `dir`, the last written first, with when. */
function newestFirst(dir: string): { id: string; at: number }[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith(".json") && RUN_ID.test(name.slice(0, -".json".length)));
  } catch {
    return [];
  }
  const dated = names.flatMap((name) => {
    try {
      return [{ id: name.slice(0, -".json".length), at: statSync(join(dir, name)).mtimeMs }];
    } catch {
      return [];
    }
  });
  return dated.sort((a, b) => b.at - a.at);
}

/** Whether a conversation `id` is kept in `dir` (of this directory or another that maps to it). */
export function runExists(dir: string, id: string): boolean {
  return RUN_ID.test(id) && existsSync(join(dir, `${id}.json`));
}

type ReadRun = { data: Partial<StoredRun> | null; file: string } | { message: string };

/** The file of conversation `id`, parsed. */
function readRun(file: string, id: string, cwd: string): ReadRun {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { message: code === "ENOENT" ? `no run "${id}" in ${cwd}` : `cannot read ${file}: ${code ?? (error as Error).message}` };
  }
  try {
    return { data: JSON.parse(text) as Partial<StoredRun> | null, file };
  } catch {
    return { message: `${file} is not JSON` };
  }
}

/** A conversation read, if it is one of `cwd` with a transcript that holds together. */
function checked(read: ReadRun, id: string, cwd: string): LoadedRun {
  if (!("data" in read)) return { ok: false, message: read.message };
  const run = read.data;
  if (typeof run !== "object" || run === null || run.cwd !== cwd) return { ok: false, message: `no run "${id}" in ${cwd}` };
  const problem = transcriptProblem(run.transcript);
  if (problem) return { ok: false, message: `${read.file}: ${problem}` };
  const spentProblem = run.spent === undefined ? undefined : spentProblemIn(run.spent);
  if (spentProblem) return { ok: false, message: `${read.file}: ${spentProblem}` };
  return { ok: true, run: { id, cwd, transcript: run.transcript as TranscriptMessage[], revision: revisionIn(run), ...(run.spent && { spent: run.spent }) } };
}

/** Writes the conversation `id` as it is after a run, the next revision after `loaded` (undefined:
 * a new conversation). When another run wrote it meanwhile (two runs continued it at once), this
 * one's is kept as a new conversation rather than over the other's. Returns the id written. */
export function saveRun(dir: string, conversation: { id: string; cwd: string; transcript: TranscriptMessage[]; spent?: ConversationSpent }, loaded: number | undefined): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // The revision is read and the next one written under the conversation's lock, so that two runs
  // finishing together cannot both write the revision after the one they read.
  return withLockSync(join(dir, `${conversation.id}.lock`), { staleMs: STALE_LOCK_MS, waitMs: 2 * STALE_LOCK_MS }, () => {
    const moved = revisionOf(join(dir, `${conversation.id}.json`)) !== loaded;
    const id = moved ? randomUUID() : conversation.id;
    const file = join(dir, `${id}.json`);
    const temporary = `${file}.${process.pid}.tmp`;
    const stored: StoredRun & { version: number } = { version: 1, ...conversation, id, revision: moved ? 1 : (loaded ?? 0) + 1 };
    writeFileSync(temporary, JSON.stringify(stored), { mode: 0o600 });
    renameSync(temporary, file);
    return id;
  });
}

/** A lock held longer than this is taken over (one whose process has ended, at once). */
const STALE_LOCK_MS = 10_000;

/** The revision of the stored conversation in `file`, or undefined when there is none to read. */
function revisionOf(file: string): number | undefined {
  try {
    return revisionIn(JSON.parse(readFileSync(file, "utf8")) as { revision?: unknown } | null);
  } catch {
    return undefined;
  }
}

/** A file's revision; files of earlier versions have none, and count as the first. */
function revisionIn(data: { revision?: unknown } | null): number {
  const revision = data?.revision;
  return typeof revision === "number" && Number.isInteger(revision) && revision > 0 ? revision : 1;
}

/** What is wrong with a kept conversation's totals (ConversationSpent), if anything. Checked here,
 * not with the protocol's schema: a run does not load the wire protocol's schemas. */
function spentProblemIn(spent: unknown): string | undefined {
  if (!isJsonObject(spent)) return "spent: must be an object";
  const count = (value: unknown, whole: boolean) => typeof value === "number" && value >= 0 && (!whole || Number.isInteger(value));
  for (const [key, whole] of [["calls", true], ["apiMs", false], ["wallMs", false]] as const) {
    if (!count(spent[key], whole)) return `spent.${key}: must be a ${whole ? "whole " : ""}number >= 0`;
  }
  const usage = spent.usage;
  if (!isJsonObject(usage)) return "spent.usage: must be an object";
  // As a runner's query takes them (SpentBeforeSchema): tokens whole, nothing below zero.
  for (const key of ["inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "costUsd", "unpricedCalls", "unreportedCalls"]) {
    const optional = key !== "inputTokens" && key !== "outputTokens";
    const whole = key !== "costUsd";
    if (!(optional && usage[key] === undefined) && !count(usage[key], whole)) return `spent.usage.${key}: must be a ${whole ? "whole " : ""}number >= 0`;
  }
  return undefined;
}

/** Checked by hand, not with the protocol's schema: loading the schemas would cost every start. */
function transcriptProblem(transcript: unknown): string | undefined {
  if (!Array.isArray(transcript)) return "it holds no transcript";
  for (const [i, message] of transcript.entries()) {
    const m = message as { role?: unknown; content?: unknown } | null;
    if (typeof m !== "object" || m === null || (m.role !== "user" && m.role !== "assistant")) return `message ${i} has no role user or assistant`;
    const content = m.content;
    if (typeof content !== "string" && !(Array.isArray(content) && content.every((block) => typeof block === "object" && block !== null))) {
      return `message ${i} has no text or content blocks`;
    }
  }
  return undefined;
}
