// A look at a session's MCP servers made directly on its runner, not by a run: the servers its runs
// would start are started as a run starts them (the same configuration and approvals, environment
// and sandbox), asked what they offer and pinged, then stopped.
//
//   POST /mcp/probe  RunnerMcpProbe → 200 RunnerMcpProbeResult: every server the configuration
//                    names, started or not (with why not). 400 bad body, 409 while a run (or a direct
//                    tool call) is in flight, 422 the configuration refuses runs, 501 a backend that
//                    starts no MCP server itself, 504 the probe's time limit passed.
//   Closing the request stops the probe (and the servers it started).
import { z } from "zod";
import { RunnerQueryFields } from "./runner.ts";

/** The longest a probe may be given, and how long it has when it is given none. */
export const MAX_MCP_PROBE_MS = 120_000;
export const DEFAULT_MCP_PROBE_MS = 60_000;

export const RunnerMcpProbeSchema = RunnerQueryFields.pick({
  cwd: true,
  backend: true,
  runOptions: true,
  mcpApprovals: true,
  debugLabel: true,
  telemetry: true,
})
  .extend({
    /** How long the probe may take in all, in milliseconds (default DEFAULT_MCP_PROBE_MS). */
    timeoutMs: z.number().int().min(100).max(MAX_MCP_PROBE_MS).optional(),
  })
  .strict();
export type RunnerMcpProbe = z.infer<typeof RunnerMcpProbeSchema>;

/** Bounds on what a probe reports of one server: more is left out, and `problems` says so. */
export const MCP_PROBE_LIMITS = { tools: 500, resources: 1000, prompts: 500, descriptionChars: 4000, schemaChars: 32_000 } as const;

const McpProbedServerSchema = z.object({
  name: z.string(),
  /** Where it is configured (project: .mcp.json; user, local: ~/.claude.json; settings; managed;
   * plugin; flag: the host's own). */
  scope: z.string().optional(),
  /** connected: started and answering its handshake; failed: it could not be started or reached;
   * pending approval: a .mcp.json server nobody approved; disabled: listed in the user's
   * disabledMcpjsonServers; blocked: the settings' MCP policy keeps it from running. */
  state: z.enum(["connected", "failed", "pending approval", "disabled", "blocked"]),
  /** Why it failed or was not started; for a connected server, why its ping failed. */
  error: z.string().optional(),
  /** It failed for want of an OAuth sign-in. */
  needsSignIn: z.boolean().optional(),
  /** How long its answer to a ping took, when it answered. */
  latencyMs: z.number().nonnegative().optional(),
  tools: z.array(z.object({ name: z.string(), description: z.string(), inputSchema: z.record(z.string(), z.unknown()) })),
  resources: z.array(z.object({ uri: z.string(), name: z.string(), mimeType: z.string().optional() })),
  prompts: z.array(
    z.object({
      name: z.string(),
      description: z.string(),
      arguments: z.array(z.object({ name: z.string(), description: z.string(), required: z.boolean() })),
    }),
  ),
  /** What went wrong in asking it (a listing that failed, items left out over the bounds). */
  problems: z.array(z.string()).optional(),
});
export type McpProbedServer = z.infer<typeof McpProbedServerSchema>;

export const RunnerMcpProbeResultSchema = z.object({ servers: z.array(McpProbedServerSchema) });
export type RunnerMcpProbeResult = z.infer<typeof RunnerMcpProbeResultSchema>;
