// The server's most recent log records, kept in memory for the Open Harness API's logs routes. It is
// fed the records as the log writes them (after the hiding of secrets), so it holds nothing the
// log does not show. Keeping one is an array push: no copy, no serialisation; the oldest records go
// once the buffer holds more than MAX_RECORDS of them or more than MAX_CHARS characters of text.
import { LOG_LEVELS, logSettings, type LogLevel } from "./settings.ts";
import type { LogDetail, ServerLog } from "./writer.ts";

/** The most records kept. */
export const MAX_RECORDS = 5000;
/** The most text kept, in characters: a record's line and the strings of its detail, plus
 * RECORD_OVERHEAD for what holds them (about 4 MB of memory for log lines, which are mostly ASCII). */
export const MAX_CHARS = 4 * 1024 * 1024;
const RECORD_OVERHEAD = 64;

export type LogRecord = {
  /** Its place in the server's log since the server started, from 1. */
  seq: number;
  /** When it was logged, in milliseconds since the epoch. */
  at: number;
  level: LogLevel;
  line: string;
  detail: LogDetail | undefined;
  size: number;
};

const RANK: Record<LogLevel, number> = Object.fromEntries(LOG_LEVELS.map((level, rank) => [level, rank])) as Record<LogLevel, number>;

/** Whether `level` is `least` or above. */
export function atLeast(level: LogLevel, least: LogLevel): boolean {
  return RANK[level] >= RANK[least];
}

/** A buffer keeping the records of `least` level and above (the log's own level: what it writes). */
export function createLogBuffer(options: { least?: LogLevel; maxRecords?: number; maxChars?: number; now?: () => number } = {}) {
  const least = RANK[options.least ?? "info"];
  const maxRecords = options.maxRecords ?? MAX_RECORDS;
  const maxChars = options.maxChars ?? MAX_CHARS;
  const now = options.now ?? Date.now;
  // The records kept are kept[head..]: dropping the oldest moves `head`, and the array is cut now
  // and then, so that dropping costs the same however many records there are.
  let kept: (LogRecord | undefined)[] = [];
  let head = 0;
  let chars = 0;
  let seq = 0;
  const listeners = new Set<(record: LogRecord) => void>();

  function dropOldest(): void {
    chars -= kept[head]!.size;
    kept[head++] = undefined;
    if (head > 1024 && head * 2 > kept.length) {
      kept = kept.slice(head);
      head = 0;
    }
  }

  const push: ServerLog = (line, detail) => {
    const level = detail?.level ?? "info";
    if (RANK[level] < least) return;
    let size = RECORD_OVERHEAD + line.length;
    if (detail) for (const name in detail) size += typeof detail[name] === "string" ? name.length + (detail[name] as string).length : name.length;
    const record: LogRecord = { seq: ++seq, at: now(), level, line, detail, size };
    if (size > maxChars) return;
    kept.push(record);
    chars += size;
    while (chars > maxChars || kept.length - head > maxRecords) dropOldest();
    for (const listener of listeners) listener(record);
  };

  return {
    /** Keeps a record (a ServerLog: the server's log is teed into it). */
    push,
    /** The records kept, oldest first. */
    records(): LogRecord[] {
      return kept.slice(head) as LogRecord[];
    },
    /** The records kept after the `seq`th, oldest first. */
    after(after: number): LogRecord[] {
      const first = kept[head]?.seq ?? seq + 1;
      return kept.slice(head + Math.max(0, after + 1 - first)) as LogRecord[];
    },
    /** The seq of the last record logged (0 before any). */
    last(): number {
      return seq;
    },
    /** Calls `listener` with each record kept from now on, at once; returns what stops it. */
    subscribe(listener: (record: LogRecord) => void): () => void {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    listeners(): number {
      return listeners.size;
    },
  };
}

export type LogBuffer = ReturnType<typeof createLogBuffer>;

/** `log`, whose every line goes to `buffer` too. */
export function teeLog(log: ServerLog, buffer: LogBuffer): ServerLog {
  return (line, detail) => {
    buffer.push(line, detail);
    log(line, detail);
  };
}

/** The level of the records a server keeps: HARNESS_LOG_LEVEL's, as its log writes them (info when
 * it is not one: a server given a log of its own does not read it, nor refuse a bad one). */
export function keptLevel(env: Record<string, string | undefined>): LogLevel {
  try {
    return logSettings(env, () => false).level;
  } catch {
    return "info";
  }
}
