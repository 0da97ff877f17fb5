// OpenTelemetry as a run here would export it: read by the runs' own code (the settings' env over
// the process's, then the telemetry config, its notes as they are), then one empty export to each
// OTLP endpoint, so that the collector answers as it would a run's (credentials, path, port).
import { secretHiding } from "@harness/llm/hidden-secrets";
import { endpointVariable, type Protocol, type Signal, type SignalName, telemetryConfig } from "@harness/runner/telemetry-config";
import { telemetryEnv } from "@harness/runner/telemetry-env";
import { send } from "@harness/runner/telemetry-send";
import { type Check, fail, ok, warn } from "./check.ts";
import type { DoctorContext } from "./context.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** How long each endpoint's check waits for its answer, retries of a 503 included. */
export const OTLP_CHECK_MS = 5_000;

export async function telemetryChecks(ctx: DoctorContext): Promise<Check[]> {
  const env = telemetryEnv(ctx.io.env);
  const config = telemetryConfig(env);
  if (!config) {
    const given = env.CLAUDE_CODE_ENABLE_TELEMETRY?.trim();
    return [ok("telemetry", `off (CLAUDE_CODE_ENABLE_TELEMETRY ${given ? `is ${given}` : "is not set"})`)];
  }
  const { hide } = secretHiding(config.secrets);
  const signals = (["metrics", "logs", "traces"] as const).flatMap((name) => (config[name] ? [[name, config[name]] as const] : []));
  const checks: Check[] = signals.map(([name, signal]) => ok("telemetry", `${name}: ${described(signal)}`));
  checks.push(...config.notes.map((note) => warn("telemetry", note, "mend the variable named: meanwhile a run goes on as the note says")));
  // One export per endpoint: grpc's signals share theirs, the http protocols' paths differ.
  const seen = new Set<string>();
  for (const [name, signal] of signals) {
    if (!signal.otlp || seen.has(`${signal.otlp.protocol} ${signal.otlp.endpoint}`)) continue;
    seen.add(`${signal.otlp.protocol} ${signal.otlp.endpoint}`);
    checks.push(await endpointCheck(env, name, signal.otlp));
  }
  return checks.map((c) => ({ ...c, detail: hide(c.detail), ...(c.remedy && { remedy: hide(c.remedy) }) }));
}

/** "otlp (http/protobuf) to URL, headers Authorization (values hidden), and console, every 60000 ms" */
function described(signal: Signal): string {
  const parts: string[] = [];
  if (signal.otlp) {
    const names = Object.keys(signal.otlp.headers);
    parts.push(`otlp (${signal.otlp.protocol}) to ${shown(signal.otlp.endpoint)}${names.length ? `, headers ${names.join(", ")} (values hidden)` : ""}`);
  }
  if (signal.console) parts.push(signal.otlp ? "and console" : "console");
  return `${parts.join(", ")}, every ${signal.intervalMs} ms`;
}

/** A URL without its user and password (the config refuses such an endpoint; never shown all the same). */
function shown(endpoint: string): string {
  const url = new URL(endpoint);
  url.username = "";
  url.password = "";
  return url.href;
}

/** An empty export request (no resource, no record) in the signal's protocol: a collector takes it
 * as it takes a run's, through its authentication and routing, and stores nothing. */
function emptyBody(signal: SignalName, protocol: Protocol): Uint8Array<ArrayBuffer> | string {
  if (protocol === "http/json") return JSON.stringify({ metrics: { resourceMetrics: [] }, logs: { resourceLogs: [] }, traces: { resourceSpans: [] } }[signal]);
  return new Uint8Array(new ArrayBuffer(0));
}

async function endpointCheck(env: Env, signal: SignalName, otlp: NonNullable<Signal["otlp"]>): Promise<Check> {
  const name = "telemetry endpoint";
  const url = shown(otlp.endpoint);
  const upper = signal.toUpperCase();
  const own = `OTEL_EXPORTER_OTLP_${upper}_ENDPOINT`;
  const variable = endpointVariable(env, signal) ?? "OTEL_EXPORTER_OTLP_ENDPOINT";
  // gRPC's session and AbortSignal.timeout's timer hold no process open (a run's process lives on
  // for other reasons): this timer keeps doctor's until the answer, which the bound ends in time.
  const alive = setTimeout(() => {}, OTLP_CHECK_MS + 1_000);
  const request = { signal, protocol: otlp.protocol, endpoint: otlp.endpoint, headers: otlp.headers, body: emptyBody(signal, otlp.protocol) };
  const result = await send(request, AbortSignal.timeout(OTLP_CHECK_MS)).finally(() => clearTimeout(alive));
  if (result.ok) return ok(name, `${url} takes an empty ${signal} export (${otlp.protocol})`);
  const status = /^(HTTP|grpc-status) (\d+)$/.exec(result.kind);
  if (!status) {
    if (result.kind === "timeout") return fail(name, `${url} did not answer within ${OTLP_CHECK_MS / 1000} s`, `check that the collector is up and that ${variable} names it`);
    return fail(name, `${url} cannot be reached (${result.kind})`, `start the collector, or set ${variable} to where it listens`);
  }
  const [http, code] = [status[1] === "HTTP", Number(status[2])];
  // gRPC's UNAUTHENTICATED (16) and PERMISSION_DENIED (7) are HTTP's 401 and 403.
  if (http ? code === 401 || code === 403 : code === 16 || code === 7) {
    return fail(name, `${url} refused the export: ${result.detail}`, `set OTEL_EXPORTER_OTLP_HEADERS (or OTEL_EXPORTER_OTLP_${upper}_HEADERS) to the credentials the collector takes (header names and percent-encoded values, comma separated)`);
  }
  if (otlp.protocol === "grpc" && (code === 404 || (!http && code === 12))) {
    return fail(name, `${url} does not serve OTLP over gRPC: ${result.detail}`, `check OTEL_EXPORTER_OTLP_PROTOCOL and the port in ${variable} (collectors take grpc on 4317, http on 4318)`);
  }
  if (http && code === 404) {
    const path = new URL(otlp.endpoint).pathname;
    const suffix = `/v1/${signal}`;
    const remedy =
      variable === own
        ? `${own} is the whole URL, taken as it is: collectors take ${signal} at a path ending in ${suffix}`
        : `OTEL_EXPORTER_OTLP_ENDPOINT is the collector's base URL (Harness adds ${suffix}): give it without ${suffix}, or give the whole URL in ${own}`;
    return fail(name, `${url} answered 404: the collector has nothing at the path ${path}`, remedy);
  }
  return fail(name, `${url} refused the export: ${result.detail}`, "check that it is an OTLP collector's endpoint, and its log for why");
}
