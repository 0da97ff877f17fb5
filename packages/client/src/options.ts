// Checking a client's options when it is made. A WebSocket handshake the server refuses (a bad id,
// 400) cannot be read by the client, and an id left out would otherwise name a session
// "undefined": what can be known before connecting is said at once, naming the option.
import { idProblem } from "@harness/protocol/client-side";

/** The longest delay setTimeout keeps. */
export const MAX_TIMER_MS = 2_147_483_647;

type Checked = {
  url: unknown;
  userId: unknown;
  sessionId: unknown;
  token?: unknown;
  reconnect?: unknown;
  silenceMs?: unknown;
};

/** What is wrong with `options`, naming the option, or undefined when nothing is. */
export function optionsProblem(options: Checked): string | undefined {
  return urlProblem(options.url) ?? idSaid("userId", options.userId) ?? idSaid("sessionId", options.sessionId) ?? tokenProblem(options.token) ?? reconnectProblem(options.reconnect) ?? silenceProblem(options.silenceMs);
}

/** A session id's problem, said as switchSession() and the constructor say it. */
export function idSaid(name: string, id: unknown): string | undefined {
  const problem = idProblem(id);
  if (!problem) return undefined;
  return id === undefined ? `${name}: ${problem}` : `${name}: ${problem}, got ${shown(id)}`;
}

function urlProblem(url: unknown): string | undefined {
  if (typeof url !== "string") return `url: must be a string, got ${shown(url)}`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `url: is not a URL such as http://127.0.0.1:7700, got ${shown(url)}`;
  }
  if (!["http:", "https:", "ws:", "wss:"].includes(parsed.protocol)) return `url: must be http(s) or ws(s), got ${shown(url)}`;
  // The WebSocket's own URL, copied whole, would be opened at …/ws/ws with the options' ids instead.
  if (["userId", "sessionId", "token", "since"].some((name) => parsed.searchParams.has(name))) return `url: is the server's address without a query (userId, sessionId and token are options of their own), got ${shown(url)}`;
  return undefined;
}

function tokenProblem(token: unknown): string | undefined {
  return token === undefined || (typeof token === "string" && token !== "") ? undefined : "token: must be a non-empty string when given";
}

function reconnectProblem(reconnect: unknown): string | undefined {
  if (reconnect === undefined || typeof reconnect === "boolean") return undefined;
  if (typeof reconnect !== "object" || reconnect === null) return `reconnect: must be true, false or {minDelayMs, maxDelayMs, maxAttempts}, got ${shown(reconnect)}`;
  const { minDelayMs, maxDelayMs, maxAttempts } = reconnect as Record<string, unknown>;
  const delay = (name: string, value: unknown) =>
    value === undefined || (typeof value === "number" && value >= 0 && value <= MAX_TIMER_MS) ? undefined : `reconnect.${name}: must be a number of milliseconds from 0 to ${MAX_TIMER_MS}, got ${shown(value)}`;
  const attempts =
    maxAttempts === undefined || maxAttempts === Infinity || (Number.isInteger(maxAttempts) && (maxAttempts as number) >= 1)
      ? undefined
      : `reconnect.maxAttempts: must be a whole number of at least 1, got ${shown(maxAttempts)}`;
  const order =
    typeof minDelayMs === "number" && typeof maxDelayMs === "number" && maxDelayMs < minDelayMs ? `reconnect.maxDelayMs: must be at least minDelayMs (${minDelayMs}), got ${maxDelayMs}` : undefined;
  return delay("minDelayMs", minDelayMs) ?? delay("maxDelayMs", maxDelayMs) ?? attempts ?? order;
}

function silenceProblem(silenceMs: unknown): string | undefined {
  if (silenceMs === undefined || (Number.isInteger(silenceMs) && (silenceMs as number) >= 0 && (silenceMs as number) <= MAX_TIMER_MS)) return undefined;
  return `silenceMs must be a whole number of milliseconds from 0 to ${MAX_TIMER_MS}, got ${String(silenceMs)}`;
}

function shown(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}
