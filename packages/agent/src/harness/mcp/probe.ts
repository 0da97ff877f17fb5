// A probe of the MCP servers a run in the same place would start: the run's own setup starts them
// (its settings, approvals, policy, environment and sandbox), each started server is asked for its
// tools, resources and prompts and pinged, and all are stopped. Servers the setup does not start are
// reported with why. Tools are described as the model gets them (their descriptions cut, their input
// schemas as the model APIs take them). What a server says is bounded (MCP_PROBE_LIMITS) and shown
// with the run's secrets hidden, as its notices are.
import { secretValuesOf } from "@harness/llm/hidden-secrets";
import { MCP_PROBE_LIMITS, type McpProbedServer } from "@harness/protocol";
import type { McpConnection } from "../../mcp/connection.ts";
import { modelInputSchema } from "../../mcp/input-schema.ts";
import { truncateDescription } from "../../mcp/mcp-tool.ts";
import { listResources } from "../../mcp/resources.ts";
import { withRequestSignal } from "../../mcp/request-signal.ts";
import type { RunAgentOptions } from "../../types.ts";
import { createAgentResources, knowSecrets, shownText } from "../resources.ts";
import { loadRunSetup } from "../setup/setup.ts";

/** The run options a probe reads its configuration from (no prompt, no model turn). */
export type McpProbeOptions = Omit<RunAgentOptions, "prompt" | "history" | "approve" | "steering" | "onConfigure" | "maxTurns" | "emit" | "resources">;

export type McpProbeOutcome = { ok: true; servers: McpProbedServer[] } | { ok: false; message: string };

/** How long each request to a started server (a ping, a listing) may take. */
const REQUEST_MS = 10_000;

/** Never rejects on a server's failure (it is reported); rejects when `options.signal` fires. */
export async function probeMcpServers(options: McpProbeOptions): Promise<McpProbeOutcome> {
  const resources = createAgentResources();
  knowSecrets(resources, secretValuesOf(options.env ?? process.env));
  try {
    const setup = await loadRunSetup({ ...options, prompt: "", emit: () => {} }, resources, () => {});
    options.signal.throwIfAborted();
    if ("refused" in setup) return { ok: false, message: setup.refused };
    const shown = (text: string) => shownText(resources, text);
    const connections = setup.mcpConnections?.() ?? [];
    const started = await Promise.all(
      setup.mcpServers.map(async (status): Promise<McpProbedServer> => {
        const connection = connections.find((c) => c.config.name === status.name);
        const where = setup.inventory.mcpConfigured[status.name];
        const base = { name: status.name, ...(where && { scope: where.scope }), tools: [], resources: [], prompts: [] };
        if (status.state !== "connected" || !connection) {
          return { ...base, state: "failed", error: shown(status.error ?? "it did not connect"), ...(status.needsSignIn && { needsSignIn: true }) };
        }
        return { ...base, state: "connected", ...(await asked(connection, options.signal, shown)) };
      }),
    );
    const notStarted = setup.inventory.mcpNotStarted.map(
      (server): McpProbedServer => ({ name: server.name, scope: server.scope, state: server.state, error: shown(server.reason), tools: [], resources: [], prompts: [] }),
    );
    return { ok: true, servers: [...started, ...notStarted] };
  } finally {
    await resources.dispose();
  }
}

type Asked = Pick<McpProbedServer, "tools" | "resources" | "prompts" | "latencyMs" | "error" | "problems">;

/** What a connected server offers, and how long it takes to answer a ping. */
async function asked(connection: McpConnection, signal: AbortSignal, shown: (text: string) => string): Promise<Asked> {
  const problems: string[] = [];
  const cut = <T>(items: readonly T[], limit: number, what: string): T[] => {
    if (items.length > limit) problems.push(`${items.length} ${what}; the first ${limit} are listed`);
    return items.slice(0, limit);
  };
  const tools = cut(connection.tools, MCP_PROBE_LIMITS.tools, "tools").map((tool) => ({
    name: tool.name,
    description: shown(truncateDescription(tool.description ?? "")),
    inputSchema: schemaWithin(modelInputSchema(tool.inputSchema), tool.name, problems),
  }));
  const prompts = cut(connection.prompts, MCP_PROBE_LIMITS.prompts, "prompts").map((prompt) => ({
    name: prompt.name,
    description: bounded(shown(prompt.description ?? "")),
    arguments: prompt.arguments.map((arg) => ({ name: arg.name, description: bounded(shown(arg.description ?? "")), required: arg.required })),
  }));
  const [ping, listed] = await Promise.all([pinged(connection, signal), listResources(connection, signal, REQUEST_MS)]);
  problems.push(...connection.skippedTools.map((tool) => `tool ${tool.name} left out: ${tool.reason}`), ...connection.skippedPrompts, ...listed.problems);
  const resources = cut(listed.resources, MCP_PROBE_LIMITS.resources, "resources").map((resource) => ({
    uri: resource.uri,
    name: resource.name,
    ...(resource.mimeType !== undefined && { mimeType: resource.mimeType }),
  }));
  return {
    tools,
    resources,
    prompts,
    ...("latencyMs" in ping ? { latencyMs: ping.latencyMs } : { error: shown(`ping failed: ${ping.error}`) }),
    ...(problems.length > 0 && { problems: problems.map((problem) => bounded(shown(problem))) }),
  };
}

async function pinged(connection: McpConnection, signal: AbortSignal): Promise<{ latencyMs: number } | { error: string }> {
  const started = performance.now();
  try {
    await withRequestSignal(signal, (requestSignal) => connection.client.ping({ signal: requestSignal, timeout: REQUEST_MS }));
    return { latencyMs: Math.round((performance.now() - started) * 10) / 10 };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

const bounded = (text: string) => (text.length > MCP_PROBE_LIMITS.descriptionChars ? `${text.slice(0, MCP_PROBE_LIMITS.descriptionChars)}…` : text);

/** The tool's input schema, or an empty object one when it is larger than the bound (said). */
function schemaWithin(schema: Record<string, unknown>, tool: string, problems: string[]): Record<string, unknown> {
  if (JSON.stringify(schema).length <= MCP_PROBE_LIMITS.schemaChars) return schema;
  problems.push(`tool ${tool}: its input schema is longer than ${MCP_PROBE_LIMITS.schemaChars} characters and is not shown`);
  return { type: "object" };
}
