// GET /metrics: the server's figures in the Prometheus text format, computed at scrape time from the
// registry's and the runner pool's state and the counters the sessions and sockets bump.
import { readFileSync } from "node:fs";
import { byLabel, exposition, type Family } from "./exposition.ts";
import type { ProcessMetrics } from "./process.ts";
import type { ServerCounts } from "./counts.ts";

/** What the server holds now, read at each scrape. */
export type MetricsGauges = { sessions: number; clients: number; runs: number; awaitingApproval: number; runnerProcesses: number };
/** The runner pool's counts since the server started. */
export type RunnerCounts = { started: number; exitedUnexpectedly: number };

export type MetricsSources = {
  gauges: () => MetricsGauges;
  runners: () => RunnerCounts;
  counts: ServerCounts;
  process: ProcessMetrics;
};

const VERSION = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

function gauge(name: string, help: string, value: number): Family {
  return { name, help, type: "gauge", samples: [{ value }] };
}

function counter(name: string, help: string, value: number): Family {
  return { name, help, type: "counter", samples: [{ value }] };
}

export function metricsText(sources: MetricsSources): string {
  const now = sources.gauges();
  const runners = sources.runners();
  const { counts } = sources;
  const families: Family[] = [
    gauge("harness_sessions_open", "Sessions in memory (opened by a client or a run, not yet evicted).", now.sessions),
    gauge("harness_clients_connected", "WebSocket clients connected to sessions.", now.clients),
    gauge("harness_runs_in_flight", "Sessions with a run in progress.", now.runs),
    gauge("harness_runs_awaiting_approval", "Runs waiting for a client to approve or deny a tool call.", now.awaitingApproval),
    gauge("harness_runner_processes", "Runner processes alive.", now.runnerProcesses),
    counter("harness_runs_started_total", "Runs started (a submit, a resume, steer messages a completed run left, a run a previous server left picked up); less those ended, the runs in flight.", counts.runsStarted),
    { name: "harness_runs_ended_total", help: "Runs started here that ended, by outcome (interrupted: the server stopped or its runner was gone before it finished).", type: "counter", samples: byLabel("outcome", counts.runsEnded) },
    counter("harness_runs_interrupted_at_start_total", "Runs a previous server left that this one found gone and wrote down as interrupted (neither started nor ended here).", counts.runsInterruptedAtStart),
    { name: "harness_commands_received_total", help: "Valid commands received from clients, by type.", type: "counter", samples: byLabel("type", counts.commands) },
    { name: "harness_commands_refused_total", help: "Error frames that refused a frame or a command (a bad frame, a busy session, a command not taken now), by code.", type: "counter", samples: byLabel("code", counts.refusals) },
    {
      name: "harness_session_notices_total",
      help: "Error frames that told clients of their session, not of a command (not_stored: the store cannot keep it; session_deleted), by code.",
      type: "counter",
      samples: byLabel("code", counts.notices),
    },
    counter("harness_websocket_connections_total", "WebSocket connections opened to sessions (those closed at once for a session that cannot be served are not among them).", counts.connections),
    { name: "harness_websocket_handshakes_refused_total", help: "WebSocket handshakes refused, by HTTP status (by the server's checks or as malformed).", type: "counter", samples: byLabel("status", counts.handshakesRefused) },
    {
      name: "harness_websocket_closed_at_open_total",
      help: "WebSockets upgraded only to say in an error frame why their session cannot be served, then closed, by reason (cannot_open_session: closed 1011).",
      type: "counter",
      samples: byLabel("reason", counts.closedAtOpen),
    },
    {
      name: "harness_model_tokens_total",
      help: "Model tokens as the sessions count them, by kind.",
      type: "counter",
      samples: [
        { labels: { kind: "input" }, value: counts.tokens.input },
        { labels: { kind: "output" }, value: counts.tokens.output },
        { labels: { kind: "cache_read" }, value: counts.tokens.cacheRead },
        { labels: { kind: "cache_write" }, value: counts.tokens.cacheWrite },
      ],
    },
    counter("harness_model_cost_usd_total", "Model cost in US dollars as the sessions count it (of the calls whose price is known).", counts.costUsd),
    counter(
      "harness_model_unpriced_calls_total",
      "Model calls of a model with no known price, as the sessions count them: harness_model_cost_usd_total counts nothing for them.",
      counts.unpricedCalls,
    ),
    counter("harness_runner_processes_started_total", "Runner processes started.", runners.started),
    counter("harness_runner_processes_exited_unexpectedly_total", "Runner processes that exited while sessions still used them.", runners.exitedUnexpectedly),
    ...sources.process.families(),
    { name: "harness_build_info", help: "The server's version and the Node.js version it runs on; always 1.", type: "gauge", samples: [{ labels: { version: VERSION, node: process.version }, value: 1 }] },
  ];
  return exposition(families);
}
