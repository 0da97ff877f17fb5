// What the built-in tools remember about one conversation. The runner creates it once per
// conversation, passes it to every run (ToolContext.state), and disposes of it when the
// conversation ends.
import type { BackgroundShell } from "./shell/background-shells.ts";
import { killAllShells } from "./shell/background-shells.ts";
import { signalGroup, trackedGroups } from "../process/process-groups.ts";
import { removeSessionEnv } from "./shell/session-env.ts";
import type { ShellSlot } from "./shell/cwd.ts";

/** A file as it was when the agent last read or wrote it. */
export type FileSnapshot = {
  mtimeMs: number;
  size: number;
  /** sha256 of the whole content, when the file was small enough to hash. */
  hash?: string;
};

export type TodoStatus = "pending" | "in_progress" | "completed";
export type TodoItem = { content: string; status: TodoStatus; activeForm: string };

export type WebSearchResult = { title: string; url: string; snippet?: string };
export type WebSearchOptions = { signal: AbortSignal; allowedDomains?: string[]; blockedDomains?: string[] };
/** What a backend that answers as well as finds (a model searching) gives: the pages, and its
 * answer from them. */
export type WebSearchAnswer = { results: WebSearchResult[]; answer?: string };
/** A search backend for the WebSearch tool. Results outside the domain filters are dropped again
 * by the tool, so a provider may ignore them. May throw; the tool reports the error. */
export type WebSearchProvider = {
  search(query: string, options: WebSearchOptions): Promise<WebSearchResult[] | WebSearchAnswer>;
};

export type ToolLimits = {
  /** Largest image Read returns, in bytes. Base64 makes it a third larger, and the model API takes
   * at most 5 MB of base64 per image. */
  maxImageBytes: number;
  /** Largest PDF Read sends to the model, in bytes (the model API takes 32 MB a request, base64
   * and all). */
  maxPdfBytes: number;
  /** Largest PDF Read opens to take `pages` out of (the pages taken must still fit maxPdfBytes).
   * The file is read into a Buffer, outside V8's heap, which runners keep small (server
   * gc-flags.ts); the heap holds only what is parsed: an entry per object of the cross-reference
   * data, the page tree, and the objects the chosen pages reach. */
  maxPdfFileBytes: number;
  /** Largest response body WebFetch accepts, in bytes. */
  maxFetchBytes: number;
  fetchTimeoutMs: number;
  /** Unread output kept per stream of a background shell, in bytes; older unread output is dropped. */
  backgroundOutputBytes: number;
  /** Files larger than this are tracked by modification time and size only, without a hash. */
  maxHashBytes: number;
};

export const DEFAULT_TOOL_LIMITS: Readonly<ToolLimits> = {
  maxImageBytes: 3_932_160,
  maxPdfBytes: 20 * 1024 * 1024,
  maxPdfFileBytes: 256 * 1024 * 1024,
  maxFetchBytes: 10 * 1024 * 1024,
  fetchTimeoutMs: 60_000,
  backgroundOutputBytes: 1024 * 1024,
  maxHashBytes: 16 * 1024 * 1024,
};

export type ToolState = {
  /** Absolute path → the file as the agent last saw it. */
  readonly files: Map<string, FileSnapshot>;
  /** Writes in progress per absolute path, so that concurrent edits of one file run one at a time. */
  readonly fileLocks: Map<string, Promise<unknown>>;
  /** Background shells by id, finished ones included. */
  readonly shells: Map<string, BackgroundShell>;
  /** Process groups of foreground commands that left processes running (`server &`): stopped with
   * the state, as background shells are. */
  readonly strays: Set<number>;
  todos: TodoItem[];
  webSearch?: WebSearchProvider;
  readonly limits: Readonly<ToolLimits>;
  readonly onTodosChange?: (todos: readonly TodoItem[]) => void;
  /** Where the main agent's Bash commands start (shell/cwd.ts): kept with the conversation. */
  readonly shell: ShellSlot;
  /** CLAUDE_ENV_FILE of the conversation's SessionStart hooks, once one was given (shell/session-env.ts). */
  envFile?: string;
  disposed: boolean;
};

export type ToolStateOptions = {
  webSearch?: WebSearchProvider;
  limits?: Partial<ToolLimits>;
  /** Called after every TodoWrite with the new list. */
  onTodosChange?: (todos: readonly TodoItem[]) => void;
};

export function createToolState(options: ToolStateOptions = {}): ToolState {
  return {
    files: new Map(),
    fileLocks: new Map(),
    shells: new Map(),
    strays: new Set(),
    shell: {},
    todos: [],
    ...(options.webSearch && { webSearch: options.webSearch }),
    limits: { ...DEFAULT_TOOL_LIMITS, ...options.limits },
    ...(options.onTodosChange && { onTodosChange: options.onTodosChange }),
    disposed: false,
  };
}

/** Kills every background shell that is still running and waits (briefly) for them to end. Later
 * attempts to start a background shell on this state are refused. */
export async function disposeToolState(state: ToolState): Promise<void> {
  state.disposed = true;
  // Only groups still tracked: one that ended and was forgotten may have had its id given to
  // someone else's group since.
  const tracked = trackedGroups();
  for (const group of state.strays) if (tracked.has(group)) signalGroup(group, "SIGKILL");
  state.strays.clear();
  await killAllShells(state.shells);
  removeSessionEnv(state);
}

/** The current todo list, as the last TodoWrite left it. */
export function getTodos(state: ToolState): readonly TodoItem[] {
  return state.todos;
}

/** The limits in force: the state's, or the defaults without a state. */
export function limitsOf(state: ToolState | undefined): Readonly<ToolLimits> {
  return state?.limits ?? DEFAULT_TOOL_LIMITS;
}
