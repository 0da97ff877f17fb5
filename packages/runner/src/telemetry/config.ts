// The OpenTelemetry settings, read from the variables Claude Code's users already set
// (CLAUDE_CODE_ENABLE_TELEMETRY, OTEL_*): which exporters each signal has, where and how OTLP is
// sent, how often, and what may be reported. Every value is checked: one that cannot be used is
// named in a note (never its value when it may be a secret) and its default taken, so that a
// mistyped setting never fails a run.
import { telemetryEnabled, TRUE } from "./enabled.ts";
import type { Attributes } from "./otlp-model.ts";

type Env = Readonly<Record<string, string | undefined>>;

export type Protocol = "grpc" | "http/json" | "http/protobuf";
export const PROTOCOLS: readonly Protocol[] = ["grpc", "http/json", "http/protobuf"];

export type SignalName = "metrics" | "logs" | "traces";

export type Signal = {
  /** OTLP to `endpoint`, and/or lines to the console sink. */
  otlp?: { protocol: Protocol; endpoint: string; headers: Readonly<Record<string, string>> };
  console: boolean;
  intervalMs: number;
};

export type TelemetryConfig = {
  metrics?: Signal;
  logs?: Signal;
  /** Only with CLAUDE_CODE_ENHANCED_TELEMETRY_BETA=1, as Claude Code's traces are a beta. */
  traces?: Signal;
  /** OTEL_LOG_USER_PROMPTS: the prompt's text goes in harness.user_prompt (else only its length). */
  logUserPrompts: boolean;
  /** OTEL_LOG_TOOL_DETAILS: a tool call's input goes in harness.tool_result as tool_parameters. */
  logToolDetails: boolean;
  /** OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: each export's sums since the last (delta,
   * Claude Code's default) or since the series began (cumulative, as Prometheus wants them). */
  temporality: "delta" | "cumulative";
  /** OTEL_METRICS_INCLUDE_*: which standard attributes metrics carry (events carry them all). */
  include: { sessionId: boolean; version: boolean; accountUuid: boolean };
  /** OTEL_RESOURCE_ATTRIBUTES, checked. */
  resource: Attributes;
  /** What was wrong or ignored, each naming its variable. */
  notes: string[];
  /** The header values, which the debug log must hide. */
  secrets: string[];
};

const FALSE = new Set(["0", "false", "no", "off", ""]);

export const DEFAULT_METRIC_INTERVAL_MS = 60_000;
export const DEFAULT_LOGS_INTERVAL_MS = 5_000;
export const DEFAULT_TRACES_INTERVAL_MS = 5_000;
const INTERVALS: Record<SignalName, [string, number]> = {
  metrics: ["OTEL_METRIC_EXPORT_INTERVAL", DEFAULT_METRIC_INTERVAL_MS],
  logs: ["OTEL_LOGS_EXPORT_INTERVAL", DEFAULT_LOGS_INTERVAL_MS],
  traces: ["OTEL_TRACES_EXPORT_INTERVAL", DEFAULT_TRACES_INTERVAL_MS],
};

/** The settings `env` gives, or undefined when telemetry is off or no signal has an exporter. */
export function telemetryConfig(env: Env): TelemetryConfig | undefined {
  if (!telemetryEnabled(env)) return undefined;
  const notes: string[] = [];
  const secrets: string[] = [];
  const flag = (name: string, fallback: boolean) => {
    const value = env[name]?.trim().toLowerCase();
    if (value === undefined) return fallback;
    if (TRUE.has(value)) return true;
    if (FALSE.has(value)) return false;
    notes.push(`${name} must be 1 or 0 (true or false), got "${env[name]}"; taking ${fallback ? "1" : "0"}`);
    return fallback;
  };
  const baseHeaders = pairs(env, "OTEL_EXPORTER_OTLP_HEADERS", notes, true);
  const signal = (name: SignalName): Signal | undefined => {
    const upper = name.toUpperCase();
    const exporters = exporterNames(env, `OTEL_${upper}_EXPORTER`, notes);
    if (exporters.size === 0) return undefined;
    const intervalMs = positiveInteger(env, ...INTERVALS[name], notes);
    if (!exporters.has("otlp")) return { console: true, intervalMs };
    const protocolName = env[`OTEL_EXPORTER_OTLP_${upper}_PROTOCOL`]?.trim() ? `OTEL_EXPORTER_OTLP_${upper}_PROTOCOL` : "OTEL_EXPORTER_OTLP_PROTOCOL";
    const given = env[protocolName]?.trim().toLowerCase() || "http/protobuf";
    let protocol: Protocol = "http/protobuf";
    if ((PROTOCOLS as readonly string[]).includes(given)) protocol = given as Protocol;
    else notes.push(`${protocolName} must be one of ${PROTOCOLS.join(", ")}, got "${env[protocolName]}"; sending ${name} with http/protobuf`);
    const endpoint = endpointOf(env, name, protocol, notes);
    if (endpoint === undefined) return exporters.has("console") ? { console: true, intervalMs } : undefined;
    const headers = { ...baseHeaders, ...pairs(env, `OTEL_EXPORTER_OTLP_${upper}_HEADERS`, notes, true) };
    secrets.push(...Object.values(headers));
    return { otlp: { protocol, endpoint, headers }, console: exporters.has("console"), intervalMs };
  };
  const metrics = signal("metrics");
  const logs = signal("logs");
  const beta = TRUE.has(env.CLAUDE_CODE_ENHANCED_TELEMETRY_BETA?.trim().toLowerCase() ?? "");
  const traces = beta ? signal("traces") : undefined;
  if (!beta && env.OTEL_TRACES_EXPORTER?.trim() && env.OTEL_TRACES_EXPORTER.trim().toLowerCase() !== "none") {
    notes.push("OTEL_TRACES_EXPORTER is set, but traces are a beta that CLAUDE_CODE_ENHANCED_TELEMETRY_BETA=1 turns on: no spans are sent");
  }
  const config: TelemetryConfig = {
    ...(metrics && { metrics }),
    ...(logs && { logs }),
    ...(traces && { traces }),
    logUserPrompts: flag("OTEL_LOG_USER_PROMPTS", false),
    logToolDetails: flag("OTEL_LOG_TOOL_DETAILS", false),
    temporality: temporalityOf(env, notes),
    include: { sessionId: flag("OTEL_METRICS_INCLUDE_SESSION_ID", true), version: flag("OTEL_METRICS_INCLUDE_VERSION", false), accountUuid: flag("OTEL_METRICS_INCLUDE_ACCOUNT_UUID", true) },
    resource: pairs(env, "OTEL_RESOURCE_ATTRIBUTES", notes, false),
    notes,
    secrets,
  };
  if (!metrics && !logs && !traces) {
    notes.push(`CLAUDE_CODE_ENABLE_TELEMETRY is on, but neither OTEL_METRICS_EXPORTER nor OTEL_LOGS_EXPORTER${beta ? " nor OTEL_TRACES_EXPORTER" : ""} names an exporter (otlp or console): nothing is sent`);
  }
  return config;
}

/** OTEL_*_EXPORTER: a comma list of otlp, console, none. */
function exporterNames(env: Env, name: string, notes: string[]): Set<"otlp" | "console"> {
  const names = new Set<"otlp" | "console">();
  for (const raw of (env[name] ?? "").split(",")) {
    const word = raw.trim().toLowerCase();
    if (word === "" || word === "none") continue;
    if (word === "otlp" || word === "console") names.add(word);
    else if (word === "prometheus") notes.push(`${name}: Harness has no prometheus exporter (use otlp with a collector that Prometheus scrapes); it is left out`);
    else notes.push(`${name}: "${raw.trim()}" is not an exporter (they are otlp, console, none); it is left out`);
  }
  return names;
}

/** lowmemory is delta for counters, the only instruments Harness has. */
function temporalityOf(env: Env, notes: string[]): "delta" | "cumulative" {
  const name = "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE";
  const value = env[name]?.trim().toLowerCase();
  if (value === undefined || value === "" || value === "delta" || value === "lowmemory") return "delta";
  if (value === "cumulative") return "cumulative";
  notes.push(`${name} must be delta, cumulative or lowmemory, got "${env[name]}"; taking delta`);
  return "delta";
}

function positiveInteger(env: Env, name: string, fallback: number, notes: string[]): number {
  const text = env[name]?.trim();
  if (text === undefined || text === "") return fallback;
  if (/^\d{1,10}$/.test(text) && Number(text) > 0) return Number(text);
  notes.push(`${name} must be a whole number of milliseconds above 0, got "${env[name]}"; taking ${fallback}`);
  return fallback;
}

const ownEndpointVariable = (signal: SignalName) => `OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_ENDPOINT`;

/** The variable the signal's endpoint is taken from: its own when set, else the common one when
 * set, else none (the protocol's default on localhost). */
export function endpointVariable(env: Env, signal: SignalName): string | undefined {
  const own = ownEndpointVariable(signal);
  return env[own]?.trim() ? own : env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() ? "OTEL_EXPORTER_OTLP_ENDPOINT" : undefined;
}

/** The signal's URL: its own variable as it is, else the common one with /v1/<signal> after its
 * path (the http protocols; grpc takes the base), else the protocol's default port on localhost. */
function endpointOf(env: Env, signal: SignalName, protocol: Protocol, notes: string[]): string | undefined {
  const own = ownEndpointVariable(signal);
  const name = endpointVariable(env, signal);
  const base = name ? env[name]!.trim() : protocol === "grpc" ? "http://localhost:4317" : "http://localhost:4318";
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    notes.push(`${name} must be an http:// or https:// URL; ${signal} are not sent over OTLP`);
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    notes.push(`${name} must be an http:// or https:// URL, got one with ${url.protocol}; ${signal} are not sent over OTLP`);
    return undefined;
  }
  // fetch refuses such a URL, naming it whole in its error (which the debug log would show), and gRPC drops them.
  if (url.username || url.password) {
    notes.push(`${name} carries a user and password, which OTLP does not send from a URL (give them in OTEL_EXPORTER_OTLP_HEADERS, as Authorization=Basic%20<base64 of user:password>); ${signal} are not sent over OTLP`);
    return undefined;
  }
  if (name === own || protocol === "grpc") return url.href;
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/v1/${signal}`;
  return url.href;
}

/** `k=v,k2=v2` with percent-encoded values (OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES).
 * A malformed entry is left out and named by its place, and its key when it has one, never by its
 * value when `secret`. */
function pairs(env: Env, name: string, notes: string[], secret: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  const text = env[name];
  if (!text?.trim()) return out;
  text.split(",").forEach((entry, i) => {
    if (entry.trim() === "") return;
    const eq = entry.indexOf("=");
    const key = eq < 0 ? "" : entry.slice(0, eq).trim();
    const where = `${name}: entry ${i + 1}${key ? ` (${key})` : ""}`;
    if (eq < 0 || key === "") return void notes.push(`${where} is not key=value; it is left out`);
    if (secret && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key)) return void notes.push(`${where}: the key is not a header name; it is left out`);
    let value: string;
    try {
      value = decodeURIComponent(entry.slice(eq + 1).trim());
    } catch {
      return void notes.push(`${where}: the value is not well percent-encoded; it is left out`);
    }
    // A header cannot carry a line break or a character beyond Latin-1 (fetch would refuse every request).
    if (secret && /[^\t\x20-\x7e\x80-\xff]/.test(value)) return void notes.push(`${where}: the value holds a character a header cannot (a line break, a control character or one beyond Latin-1); it is left out`);
    out[key] = value;
  });
  return out;
}
