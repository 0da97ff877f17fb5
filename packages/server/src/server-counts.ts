// What the server counts for its operators (GET /metrics): plain number increments at run, command
// and connection granularity, read at scrape time. No user id, session id, prompt or token is ever
// a key here: labels are a command's type, an error code, a run's outcome, an HTTP status.
import type { Usage } from "@harness/protocol";
import type { RunOutcome, SessionCounts } from "@harness/session";

export const RUN_OUTCOMES: readonly RunOutcome[] = ["completed", "error", "cancelled", "interrupted"];

export type ServerCounts = SessionCounts & {
  readonly runsStarted: number;
  readonly runsEnded: ReadonlyMap<RunOutcome, number>;
  readonly commands: ReadonlyMap<string, number>;
  readonly refusals: ReadonlyMap<string, number>;
  readonly connections: number;
  readonly handshakesRefused: ReadonlyMap<string, number>;
  /** Model tokens and cost as the sessions count them (their `usage`). */
  readonly tokens: { input: number; output: number; cacheRead: number; cacheWrite: number };
  readonly costUsd: number;
  /** A WebSocket connected to a session. */
  connectionOpened(): void;
  /** A WebSocket handshake answered `status` instead of upgraded. */
  handshakeRefused(status: number): void;
};

function bump<K>(map: Map<K, number>, key: K): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

export function createServerCounts(): ServerCounts {
  const runsEnded = new Map<RunOutcome, number>(RUN_OUTCOMES.map((outcome) => [outcome, 0]));
  const commands = new Map<string, number>();
  const refusals = new Map<string, number>();
  const handshakesRefused = new Map<string, number>();
  const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  const counts = {
    runsStarted: 0,
    runsEnded,
    commands,
    refusals,
    connections: 0,
    handshakesRefused,
    tokens,
    costUsd: 0,
    command: (type: string) => bump(commands, type),
    refused: (code: string) => bump(refusals, code),
    runStarted: () => void counts.runsStarted++,
    runEnded: (outcome: RunOutcome) => bump(runsEnded, outcome),
    usage(added: Usage) {
      tokens.input += added.inputTokens;
      tokens.output += added.outputTokens;
      tokens.cacheRead += added.cacheReadTokens ?? 0;
      tokens.cacheWrite += added.cacheWriteTokens ?? 0;
      counts.costUsd += added.costUsd ?? 0;
    },
    connectionOpened: () => void counts.connections++,
    handshakeRefused: (status: number) => bump(handshakesRefused, String(status)),
  };
  return counts;
}
