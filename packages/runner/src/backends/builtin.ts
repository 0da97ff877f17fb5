// The builtin backend: our own agent loop (@harness/agent). The loop picks the provider from the
// model id ("openai/…", "ollama/…", else Anthropic) unless a provider is given.
import { homedir } from "node:os";
import { resolve } from "node:path";
// Narrow entries, not the package index: the index names every module of the agent (MCP, hooks,
// compaction…), and loading them all would slow every run's start.
import type { RunAgentOptions, RunReadyInfo } from "@harness/agent";
import type { ToolInvocationOptions } from "@harness/agent/invoke-tool";
import { trustedAnthropicCredentials } from "@harness/agent/api-key-helper";
import { conversationShells, createAgentResources, type AgentResources } from "@harness/agent/resources";
import { runAgent } from "@harness/agent/run-agent";
import { type BedrockAuth, hasAnthropicCredentials, MISSING_ANTHROPIC_KEY, servedByAnthropic, type Provider, type ProviderOverrides } from "@harness/llm";
import type { RunAvailable, RunnerQuery, TranscriptMessage } from "@harness/protocol";
import type { Backend, BackendContext, RunOutcome } from "../backend.ts";
import { abortedMessage } from "../runs/abort-reason.ts";
import { secretHiding, secretValuesOf } from "@harness/llm/hidden-secrets";
import { hookReports } from "./hook-reports.ts";

export type BuiltinBackendOptions = {
  /** Chooses the model provider for a query. Default: the one the model id routes to, with the
   * query's Anthropic key when it has one. */
  provider?: (query: RunnerQuery) => Provider;
  /** True: one set of agent resources (background shells, files read, MCP servers) serves every
   * run of this backend, from its first run until dispose(). False (default): each run has its own. */
  sharedResources?: boolean;
  /** The environment runs start from (tools' processes, settings' env on top). Default: the
   * process's, read at every run. A runner process takes its own once: reading process.env whole
   * goes through the C++ environment variable by variable. */
  env?: Readonly<Record<string, string | undefined>>;
  /** What every run of this backend gets on top of its query (`harness run`'s --allowedTools,
   * --disallowedTools, --append-system-prompt, --plugin-dir and the other flags of `harness run`
   * the builtin agent takes as run options (see packages/cli/src/run/run.ts), and its stream-json's
   * init line). A `permissionMode` here wins over the query's: dontAsk, which queries do not carry.
   * Each field wins over the same field of the query's `runOptions` (a server's, for every run). */
  runOptions?: Pick<
    RunAgentOptions,
    | "rules" | "appendSystemPrompt" | "sandboxHidden" | "onReady" | "pluginDirs" | "agents" | "mainAgent" | "maxBudgetUsd" | "budgetSpentUsd"
    | "fallbackModel" | "sessionId" | "mcpConfig" | "strictMcpConfig" | "flagSettings" | "managedSettings" | "settingSources" | "additionalDirectories" | "builtinTools"
    | "images" | "resources" | "onModelEvent" | "outputSchema" | "permissionPromptTool" | "thinking" | "projectRoot" | "hooks" | "sdkMcpServers" | "permissionUpdates"
    | "onPermissionUpdates" | "allowBypassPermissions" | "onHookEvent" | "permissionMode"
  >;
};

/** Options the loop reads once it supports them: configuration changes sent while the run is in
 * flight (applied from the next model call). */
type PendingLoopOptions = { onConfigure?: BackendContext["onConfigure"] };

export function builtinBackend(opts: BuiltinBackendOptions = {}): Backend {
  let resources: AgentResources | undefined;
  return {
    name: "builtin",
    checkpointsOnChange: true,
    movesToBackground: true,
    async run(query, ctx): Promise<RunOutcome> {
      const env = opts.env ?? process.env;
      // A model the query names is checked here (an apiKeyHelper or the env of the user's settings,
      // or of the run's own, may still give a key); otherwise the settings may name one, and the model provider says the same if
      // it has no credentials.
      if (!opts.provider && query.model !== undefined && servedByAnthropic(query.model) && !hasAnthropicCredentials(query.anthropicApiKey || query.anthropicAuthToken, env)) {
        if (!(await trustedAnthropicCredentials({ home: env.HOME ?? homedir(), flag: (opts.runOptions?.flagSettings ?? query.runOptions?.flagSettings)?.settings }))) return { ok: false, message: MISSING_ANTHROPIC_KEY };
      }
      if (opts.sharedResources) resources ??= createAgentResources();
      const requestApproval = ctx.requestApproval;
      // A query that names no mode follows the settings' defaultMode, else "default". Headless
      // (nobody to approve), a call that would ask is refused with a message saying so, as Claude
      // Code does in print mode.
      const permissionMode = query.permissionMode;
      const options: RunAgentOptions & PendingLoopOptions = {
        prompt: query.prompt,
        // The query schema checks the outline of each message; the blocks inside are the
        // transcript this runner produced earlier, handed back unchanged by the session.
        history: query.history as RunAgentOptions["history"],
        ...(query.spentBefore && { spentBefore: query.spentBefore }),
        ...(opts.provider ? { provider: opts.provider(query) } : { providerOptions: keysOf(query) }),
        ...(query.model !== undefined && { model: query.model }),
        systemPrompt: query.systemPrompt,
        maxTurns: query.maxTurns,
        ...(permissionMode && { permissionMode }),
        // The conversation's id is its session's (the one a chat resumes, which /status and hooks
        // show), unless the host names one (`harness run`'s own).
        ...(query.telemetry && { sessionId: query.telemetry.sessionId }),
        // The host's, as `harness run` gives its flags; the backend's own (a runner's sandboxHidden) win.
        ...query.runOptions,
        ...opts.runOptions,
        ...(query.mcpApprovals && { mcpApprovals: query.mcpApprovals }),
        ...(query.registeredTools && { registeredTools: query.registeredTools }),
        ...(query.effort && { effort: query.effort }),
        ...(requestApproval && {
          approve: (req) => requestApproval({ toolUseId: req.toolUseId, toolName: req.toolName, description: req.description, input: req.input, ...(req.askedBecause && { reason: req.askedBecause }), ...(req.answered && { answered: req.answered }) }),
        }),
        steering: ctx.steering,
        onConfigure: ctx.onConfigure,
        ...(ctx.onStopAgent && { onStopAgent: ctx.onStopAgent }),
        ...(ctx.onTodosSet && { onTodosSet: ctx.onTodosSet }),
        ...(ctx.onBackground && { onBackground: ctx.onBackground }),
        ...(ctx.onKillShell && { onKillShell: ctx.onKillShell }),
        ...(ctx.beforeChanges && { beforeChanges: ctx.beforeChanges }),
        ...(ctx.toolEnv && { toolEnv: ctx.toolEnv }),
        ...(resources && { resources }),
        ...(env.HOME !== undefined && { home: env.HOME }),
        ...(opts.env && { env: opts.env }),
        cwd: query.cwd ? resolve(ctx.workspace, query.cwd) : ctx.workspace,
        signal: ctx.signal,
        emit: ctx.emit,
      };
      // The hooks that ran go to the session (hook.ran), and to a host that watches them itself.
      // The hiding is made when a hook first ends: most runs run none, and it reads the whole environment.
      let hide: ((text: string) => string) | undefined;
      options.onHookEvent = hookReports(ctx.emit, (text) => (hide ??= secretHiding(secretValuesOf(env)).hide)(text), options.onHookEvent);
      // What the run works with goes to the session (its command menu, its MCP servers' state), and
      // to a host that asked for it (harness run's stream-json init line).
      const hostReady = options.onReady;
      options.onReady = (info) => {
        ctx.emit({ type: "run.ready", available: availableOf(info) });
        hostReady?.(info);
      };
      const outcome = await runAgent(options);
      const transcript = outcome.transcript as TranscriptMessage[];
      const spent = { ...(outcome.spent && { spent: outcome.spent }), modelUsage: outcome.modelUsage, apiMs: outcome.apiMs };
      switch (outcome.stopReason) {
        case "end_turn":
          // The builtin loop keeps no conversation of its own: there is no backend session id.
          return {
            ok: true,
            result: outcome.result,
            usage: outcome.usage,
            transcript,
            turns: outcome.turns,
            ...(outcome.model && { model: outcome.model }),
            ...(outcome.structuredOutput && { structuredOutput: outcome.structuredOutput }),
            ...spent,
          };
        // A run that ends otherwise still paid for its model calls.
        case "aborted":
          return { ok: false, message: abortedMessage(ctx.signal), reason: "cancelled", transcript, usage: outcome.usage, turns: outcome.turns, ...spent };
        case "max_budget":
          return { ok: false, message: outcome.errorMessage ?? "the run reached its budget", reason: "max_budget", transcript, usage: outcome.usage, turns: outcome.turns, ...spent };
        case "max_turns":
          return { ok: false, message: outcome.errorMessage ?? "the run reached its maximum number of turns", reason: "max_turns", transcript, usage: outcome.usage, turns: outcome.turns, ...spent };
        default:
          return {
            ok: false,
            message: outcome.errorMessage ?? "the agent run failed",
            ...(outcome.structuredOutputMissed && { reason: "structured_output" as const }),
            ...(outcome.modelFailure && { modelFailure: outcome.modelFailure }),
            transcript,
            usage: outcome.usage,
            turns: outcome.turns,
            ...spent,
          };
      }
    },
    async prepareTool(call, ctx) {
      const env = opts.env ?? process.env;
      if (opts.sharedResources) resources ??= createAgentResources();
      // Loaded when asked: a runner that only runs prompts never needs it.
      const { prepareToolInvocation } = await import("@harness/agent/invoke-tool");
      const options: ToolInvocationOptions = {
        providerOptions: keysOf(call),
        ...(call.model !== undefined && { model: call.model }),
        ...(call.permissionMode && { permissionMode: call.permissionMode }),
        ...call.runOptions,
        ...opts.runOptions,
        ...(call.mcpApprovals && { mcpApprovals: call.mcpApprovals }),
        ...(ctx.toolEnv && { toolEnv: ctx.toolEnv }),
        ...(resources && { resources }),
        ...(env.HOME !== undefined && { home: env.HOME }),
        ...(opts.env && { env: opts.env }),
        cwd: call.cwd ? resolve(ctx.workspace, call.cwd) : ctx.workspace,
        signal: ctx.signal,
        emit: ctx.emit,
      };
      return prepareToolInvocation(options, { id: ctx.toolUseId, name: call.toolName, input: call.input });
    },
    async probeMcp(probe, ctx) {
      const env = opts.env ?? process.env;
      // Loaded when asked: the agent's index names every module, which a run's start does without.
      const { probeMcpServers } = await import("@harness/agent");
      // Its own servers, started and stopped here: never the runs' (sharedResources), which live on.
      const { resources: _shared, onReady: _ready, ...own } = opts.runOptions ?? {};
      return probeMcpServers({
        ...probe.runOptions,
        ...own,
        ...(probe.mcpApprovals && { mcpApprovals: probe.mcpApprovals }),
        ...(env.HOME !== undefined && { home: env.HOME }),
        ...(opts.env && { env: opts.env }),
        cwd: probe.cwd ? resolve(ctx.workspace, probe.cwd) : ctx.workspace,
        signal: ctx.signal,
      });
    },
    shells() {
      return resources && conversationShells(resources.toolState, opts.env ?? process.env);
    },
    async dispose(reason) {
      const held = resources;
      resources = undefined;
      await held?.dispose(reason);
    },
  };
}

function availableOf(info: RunReadyInfo): RunAvailable {
  const { model, slashCommands, tools, mcpServers, agents, skills, outputStyle, argumentHints } = info;
  return { model, slashCommands, tools, mcpServers, agents, skills, outputStyle, ...(Object.keys(argumentHints).length > 0 && { argumentHints }) };
}

/** The credentials a query or a direct tool call carries. */
type Credentials = Pick<RunnerQuery, "anthropicApiKey" | "anthropicAuthToken" | "openaiApiKey" | "awsAccessKeyId" | "awsSecretAccessKey" | "awsSessionToken" | "awsBearerTokenBedrock" | "googleAccessToken">;

/** The query's credentials, over the runner's environment. */
function keysOf(query: Credentials): ProviderOverrides {
  const bedrockAuth = bedrockAuthOf(query);
  const anthropic = {
    ...(query.anthropicApiKey && { apiKey: query.anthropicApiKey }),
    ...(query.anthropicAuthToken && { authToken: query.anthropicAuthToken }),
    ...(bedrockAuth && { bedrockAuth }),
    ...(query.googleAccessToken && { googleAccessToken: query.googleAccessToken }),
  };
  return {
    ...(Object.keys(anthropic).length > 0 && { anthropic }),
    ...(query.openaiApiKey && { openai: { apiKey: query.openaiApiKey } }),
  };
}

/** The query's Bedrock credentials, ranked as the environment's are (@harness/llm/aws-credentials). */
function bedrockAuthOf(query: Credentials): BedrockAuth | undefined {
  if (query.awsBearerTokenBedrock) return { bearer: query.awsBearerTokenBedrock };
  if (query.awsAccessKeyId && query.awsSecretAccessKey) {
    return { keys: { accessKeyId: query.awsAccessKeyId, secretAccessKey: query.awsSecretAccessKey, ...(query.awsSessionToken && { sessionToken: query.awsSessionToken }) } };
  }
  return undefined;
}
