// What the server counts for its operators (GET /metrics): plain number increments at run, command
// and connection granularity, read at scrape time. No user id, session id, prompt or token is ever
// a key here: labels are a command's type, an error code, a run's outcome, an HTTP status.
import type { Usage } from "@harness/protocol";
import type { RunOutcome, SessionCounts } from "@harness/session";

export const RUN_OUTCOMES: readonly RunOutcome[] = ["completed", "error", "cancelled", "interrupted"];

/** Why a WebSocket was upgraded and closed at once: its session could not be opened (closed 1011),
 * or was deleted since the client last saw it. Browsers and the SDK read a refused handshake's
 * status not at all, so these are said in a frame instead. */
export type ClosedAtOpen = "cannot_open_session" | "session_deleted";
export const CLOSED_AT_OPEN: readonly ClosedAtOpen[] = ["cannot_open_session", "session_deleted"];

export type ServerCounts = SessionCounts & {
  readonly runsStarted: number;
  readonly runsEnded: ReadonlyMap<RunOutcome, number>;
  readonly runsInterruptedAtStart: number;
  readonly commands: ReadonlyMap<string, number>;
  readonly refusals: ReadonlyMap<string, number>;
  readonly notices: ReadonlyMap<string, number>;
  readonly connections: number;
  readonly handshakesRefused: ReadonlyMap<string, number>;
  readonly closedAtOpen: ReadonlyMap<ClosedAtOpen, number>;
  /** Model tokens and cost as the sessions count them (their `usage`). */
  readonly tokens: { input: number; output: number; cacheRead: number; cacheWrite: number };
  readonly costUsd: number;
  /** Model calls of a model with no known price (`Usage.unpricedCalls`): `costUsd` counts nothing for them. */
  readonly unpricedCalls: number;
  /** A WebSocket connected to a session. */
  connectionOpened(): void;
  /** A WebSocket handshake answered `status` instead of upgraded. */
  handshakeRefused(status: number): void;
  /** A WebSocket upgraded only to say why it cannot be served (an error frame) and closed. */
  socketClosedAtOpen(reason: ClosedAtOpen): void;
};

function bump<K>(map: Map<K, number>, key: K): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

export function createServerCounts(): ServerCounts {
  const runsEnded = new Map<RunOutcome, number>(RUN_OUTCOMES.map((outcome) => [outcome, 0]));
  const commands = new Map<string, number>();
  const refusals = new Map<string, number>();
  const notices = new Map<string, number>();
  const handshakesRefused = new Map<string, number>();
  const closedAtOpen = new Map<ClosedAtOpen, number>(CLOSED_AT_OPEN.map((reason) => [reason, 0]));
  const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  const counts = {
    runsStarted: 0,
    runsEnded,
    runsInterruptedAtStart: 0,
    commands,
    refusals,
    notices,
    connections: 0,
    handshakesRefused,
    closedAtOpen,
    tokens,
    costUsd: 0,
    unpricedCalls: 0,
    command: (type: string) => bump(commands, type),
    refused: (code: string) => bump(refusals, code),
    notice: (code: string) => bump(notices, code),
    runStarted: () => void counts.runsStarted++,
    runEnded: (outcome: RunOutcome) => bump(runsEnded, outcome),
    runInterruptedAtStart: () => void counts.runsInterruptedAtStart++,
    usage(added: Usage) {
      tokens.input += added.inputTokens;
      tokens.output += added.outputTokens;
      tokens.cacheRead += added.cacheReadTokens ?? 0;
      tokens.cacheWrite += added.cacheWriteTokens ?? 0;
      counts.costUsd += added.costUsd ?? 0;
      counts.unpricedCalls += added.unpricedCalls ?? 0;
    },
    connectionOpened: () => void counts.connections++,
    handshakeRefused: (status: number) => bump(handshakesRefused, String(status)),
    socketClosedAtOpen: (reason: ClosedAtOpen) => bump(closedAtOpen, reason),
  };
  return counts;
}
