// The harness's diagnostics over the Open Harness API (diagnostics.get): what an operator reads
// before acting on a server: its version and uptime, its memory, what it holds and runs now, whether
// its database answers and whether it is stopping, and the settings that shape it. Nothing in it is
// a secret or a path: a holder of any token may read it, as GET /health's counts.
import { discoverSkills } from "@harness/agent/discover-skills";
import { H, handle, harnessOf, type OpenHarness } from "./common.ts";
import type { EventFeed } from "./event-feed.ts";
import { HARNESS_ID } from "./manifest.ts";
import { FORMS_HELD_MAX_BYTES, formsHeldBytes } from "./multipart.ts";

/** What the server holds and runs now (the host's side of the diagnostics). */
export type ServerFigures = {
  /** Sessions in memory (with a client or a run, or not yet idle long enough to be dropped). */
  sessions: number;
  clients: number;
  /** Sessions with a run in flight, whoever started it (an execution, a WebSocket client). */
  runs: number;
  awaitingApproval: number;
  runnerProcesses: number;
  /** MCP servers connected in the last runs of the sessions in memory. */
  mcpServersConnected: number;
  /** Why the database does not answer a read, or undefined when it does. */
  databaseProblem: string | undefined;
  /** The server's settings that are neither secrets nor paths. */
  config: Record<string, string | number | boolean>;
};

const MIB = 1024 * 1024;

/** The skills every session's runs have: those of .claude/skills in the runs' home (a workspace's
 * own are its session's). */
async function homeSkills(home: string): Promise<number> {
  const { skills } = await discoverSkills({ home, projectRoot: home });
  return skills.filter((skill) => skill.scope === "user").length;
}

export function mountDiagnosticsRoutes(oh: OpenHarness, figures: () => ServerFigures, feed: EventFeed): void {
  oh.app.get(
    `${H}/diagnostics`,
    handle(async (c) => {
      harnessOf(c);
      const now = figures();
      const stopping = oh.stopping();
      return c.json({
        harness_id: HARNESS_ID,
        version: oh.version,
        uptime_seconds: Math.floor((Date.now() - Date.parse(oh.startedAt)) / 1000),
        memory_usage_mb: Math.round((process.memoryUsage().rss / MIB) * 10) / 10,
        active_sessions: now.sessions,
        active_executions: now.runs,
        connected_mcp_servers: now.mcpServersConnected,
        installed_skills: await homeSkills(oh.home),
        config: { backend: oh.backend, ...now.config },
        started_at: oh.startedAt,
        status: stopping === undefined ? "serving" : "stopping",
        ...(stopping !== undefined && { stopping_reason: stopping }),
        database: now.databaseProblem === undefined ? { status: "pass" } : { status: "fail", message: now.databaseProblem },
        clients: now.clients,
        event_streams: feed.listeners(),
        awaiting_approval: now.awaitingApproval,
        runner_processes: now.runnerProcesses,
        // What uploads being read hold, out of what they may: past it, one more is answered 503.
        uploads: { held_bytes: formsHeldBytes(), max_bytes: FORMS_HELD_MAX_BYTES },
      });
    }),
  );
}
