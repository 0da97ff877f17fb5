// `harness run`: one headless run of the builtin agent in this process.
import { randomUUID } from "node:crypto";
import { statSync } from "node:fs";
import { homedir } from "node:os";
import { resolve } from "node:path";
import { debugLog, setDebugHow } from "@harness/llm/debug-log";
import { hasAnthropicCredentials, MISSING_ANTHROPIC_KEY, servedByAnthropic } from "@harness/llm/model-prefix";
import type { AgentResources, ModelEventSource, RunAgentOptions, RunReadyInfo } from "@harness/agent";
import type { ModelEvent } from "@harness/llm";
import type { AgentEvent, ConversationSpent, TranscriptMessage } from "@harness/protocol";
import type { RunOutcome } from "@harness/runner/headless";
import type { Readable } from "node:stream";
import type { Command } from "../args.ts";
import { createRenderer, printable, terminalOptions, type Sink } from "../display/render.ts";
import { projectPath } from "../project-dir.ts";
import { runExists, runsDir, saveRun } from "./history.ts";
import { checkRunFlags } from "./options.ts";
import { runConfigOptions } from "./config-flags.ts";
import { interruptedResult, permissionDenials, runResult } from "./result.ts";
import type { InputMessage } from "./stream/input.ts";
import type { TurnControls, TurnSettings } from "./stream/session.ts";

/** Where the reply's text goes when stdout carries JSON instead. */
const DISCARD: Sink = { write: () => true };
/** How the Agent SDK's managed settings are named where a rule of theirs refuses a call. */
const MANAGED_TIER = "the run's managed settings";

export type RunIO = {
  stdout: Sink;
  stderr: Sink;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Where --input-format stream-json reads the messages; default the process's standard input. */
  stdin?: Readable;
};

export type RunCommand = Extract<Command, { kind: "run" }>;

/** Exit status: 0 success, 1 failure, 2 bad usage, 130 cancelled (SIGINT), 143 terminated (SIGTERM),
 * 129 its terminal closed (SIGHUP). */
export async function runCommand(command: RunCommand, io: RunIO): Promise<number> {
  const format = command.outputFormat ?? "text";
  // Each turn (each message of --input-format stream-json) has its own result: its own time and refusals.
  let startedAt = performance.now();
  /** The id of the run's conversation once --resume can find it (resumed, or kept after the run). */
  let keptId: string | undefined;
  let refused = permissionDenials();
  const resultLine = (outcome: RunOutcome, interrupted = false) => {
    const line = runResult(outcome, performance.now() - startedAt, keptId, refused.denials, io.env);
    return `${JSON.stringify(interrupted ? interruptedResult(line) : line)}\n`;
  };
  // Bad usage (status 2) is said in words on stderr in every format; in the JSON formats any other
  // failure is the result on stdout.
  const fail = (message: string, status = 1) => {
    if (format !== "text" && status !== 2) io.stdout.write(resultLine({ ok: false, message }));
    else io.stderr.write(`harness: ${message.replace(/\s*\n\s*/g, " ").trim()}\n`);
    return status;
  };
  // Bad usage is said first (exit 2), whatever else is missing.
  const cwd = resolve(io.cwd, command.cwd ?? ".");
  let isDirectory = false;
  try {
    isDirectory = statSync(cwd).isDirectory();
  } catch {
    // Reported below.
  }
  if (!isDirectory) return fail(`--cwd: ${cwd} is not a directory`, 2);
  // A report that shows part of what the debug log would (an MCP server's stderr) says how to see it all.
  setDebugHow((category) => `harness run --debug ${category}`);
  if (command.debug) {
    const problem = (await import("./debug.ts")).startRunDebug(command.debug, io.stderr, io.cwd);
    if (problem !== undefined) return fail(problem, 2);
  }
  // Said on stderr in every format, as claude -p says a bad --mcp-config or --settings.
  const config = await runConfigOptions(command, io.cwd, io.env);
  if (!config.ok) {
    io.stderr.write(`harness: ${config.message}\n`);
    return 1;
  }
  for (const warning of config.warnings) io.stderr.write(`harness: ${warning}\n`);
  if (command.managedSettings?.note) io.stderr.write(`harness: ${command.managedSettings.note}\n`);

  // Only a model served by the Anthropic API needs the key (bare ids and anthropic/…); ollama/… and
  // openai/… models run without it, and an apiKeyHelper or the env of the user's settings or of
  // --settings may give one.
  // Without --model or HARNESS_MODEL the settings may name one: the run then finds out, and the
  // model provider says the same in the same words.
  const model = command.model ?? (io.env.HARNESS_MODEL?.trim() || undefined);
  const flags = await checkRunFlags(command, model, io.env, (message) => io.stderr.write(`harness: ${message}\n`));
  if (typeof flags === "string") return fail(flags);
  // A stream's initialize request may still bring settings with a key (the Agent SDK's
  // settingsDelivery): each of its runs checks for one as it starts.
  const keyMayCome = command.inputFormat === "stream-json";
  if (!keyMayCome && model !== undefined && servedByAnthropic(model) && !hasAnthropicCredentials(undefined, io.env) && !(await settingsCredentials(io.env, config.options.flagSettings?.settings))) return fail(MISSING_ANTHROPIC_KEY);

  // The conversation this run goes on with (--continue, --resume), and the id it is kept under.
  // They are the directory's whatever path led to it: `cd link && harness run -c` goes on with the
  // run of `harness run --cwd link` (the shell's working directory is the one links lead to).
  const where = projectPath(cwd);
  const conversations = runsDir(io.env.HOME || homedir(), where);
  // --session-id names a new conversation (a fork's, with --fork-session), never one kept already.
  let runId: string = flags.sessionId ?? randomUUID();
  if (flags.sessionId !== undefined && runExists(conversations, flags.sessionId)) return fail(`--session-id: ${flags.sessionId} is already in use; --resume ${flags.sessionId} goes on with it`);
  let history: TranscriptMessage[] | undefined;
  /** What the conversation spent in earlier runs (/cost counts on from it). */
  let spentBefore: ConversationSpent | undefined;
  let loadedRevision: number | undefined;
  if (command.continue || command.resume !== undefined) {
    // The directory's chats count too: the conversation changed last, whichever way it was had.
    const { findConversation } = await import("../conversations.ts");
    const found = await findConversation({ where, env: io.env }, command.resume, (message) => io.stderr.write(`harness: ${message}\n`));
    if (!found.ok) return fail(found.message);
    history = found.transcript;
    spentBefore = found.spent;
    // A fork starts a conversation of its own from it: the one loaded is left as it was.
    if (!command.forkSession) {
      runId = keptId = found.id;
      loadedRevision = found.revision;
    }
  }
  // Not kept, the conversation still has its id, as in claude -p's result; nothing resumes it.
  if (command.noSessionPersistence) keptId = runId;

  const controller = new AbortController();
  let stopStatus = 0;
  const stop = (status: number) => () => {
    if (stopStatus) process.exit(status);
    stopStatus = status;
    controller.abort();
  };
  const onInt = stop(130);
  const onTerm = stop(143);
  const onHup = stop(129);
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  process.on("SIGHUP", onHup);
  // A closed pipe (`harness run … | head`) ends the run quietly.
  const onPipeError = () => {
    stopStatus ||= 1;
    controller.abort();
  };
  process.stdout.on("error", onPipeError);
  // A closed stderr (`2>&-`, `2> >(head -c 5)`) loses the tool activity, not the run or its answer.
  const ignore = () => {};
  process.stderr.on("error", ignore);

  // As text, the reply streams to a terminal, and tool activity goes to stderr; a script reading
  // stdout gets the reply's last part, at the end, as from `claude -p`. As json, stdout has only the
  // result, and stderr the warnings; as stream-json, stdout has every event, then the result.
  const finalOnly = format === "text" && !io.stdout.isTTY;
  const renderer = createRenderer(format === "text" ? io.stdout : DISCARD, io.stderr, { ...terminalOptions(io), cwd, finalOnly, ...(command.verbose && { thinking: true }) });
  let readyModel: string | undefined;
  const stream = format === "stream-json" ? await streamWriters((line) => io.stdout.write(line), runId, cwd, command.includePartialMessages ? () => readyModel ?? model : undefined) : undefined;
  const show: (event: AgentEvent) => void = stream
    ? (event) => {
        // The init line that opens the stream says what run.ready would.
        if (event.type === "run.ready") return;
        // Hooks are told as Claude Code tells them (hook-events.ts), with --include-hook-events.
        if (event.type === "hook.ran") return;
        // Thinking streams as Claude Code streams it, with --include-partial-messages only.
        if (event.type === "assistant.thinking" || (event.type === "assistant.retracted" && event.thinking)) return;
        // Driven over the control protocol (the Agent SDK), the stream holds Claude Code's
        // kinds of message only: the SDK hands any line to the program as a message.
        if (command.inputFormat !== "stream-json") stream.opening.line(`${JSON.stringify(event)}\n`);
        else {
          const system = stream.systemMessage(event, runId);
          if (system) stream.opening.line(`${JSON.stringify(system)}\n`);
        }
        for (const message of stream.messages.event(event)) stream.opening.line(`${JSON.stringify(message)}\n`);
      }
    : format === "text"
      ? (event) => {
          // As claude -p, a run says nothing of the MCP servers that work, only of those that fail.
          if (!command.verbose && quietMcpNotice(event)) return;
          renderer.event(event);
        }
      : (event) => {
          if (event.type === "notice" && event.level !== "info") renderer.event(event);
        };
  const emit = (event: AgentEvent) => {
    refused.event(event);
    show(event);
  };
  /** `interrupted`: the program driving the run stopped the turn (a control request). */
  const result = (outcome: RunOutcome, interrupted = false) => {
    if (outcome.transcript && outcome.transcript.length > 0 && !command.noSessionPersistence) {
      try {
        keptId = saveRun(conversations, { id: runId, cwd: where, transcript: outcome.transcript, ...(outcome.spent && { spent: outcome.spent }) }, loadedRevision);
        if (keptId !== runId) io.stderr.write(`harness: another run went on with conversation ${runId} meanwhile; this run's is kept as ${keptId}\n`);
        // The next turn goes on with the conversation as kept.
        loadedRevision = keptId === runId ? (loadedRevision ?? 0) + 1 : 1;
        runId = keptId;
      } catch (error) {
        io.stderr.write(`harness: this run's conversation could not be kept for --continue: ${(error as Error).message}\n`);
      }
    }
    if (stream) {
      stream.opening.end();
      for (const message of stream.messages.end()) io.stdout.write(`${JSON.stringify(message)}\n`);
    }
    if (format !== "text") io.stdout.write(resultLine(outcome, interrupted));
    if (outcome.transcript) history = outcome.transcript;
  };
  /** Sends what telemetry has still to send (bounded), once the run is over. */
  let telemetryDone: (() => Promise<void>) | undefined;
  try {
    // Imported here so that usage errors and the checks above answer without loading the agent;
    // after the handlers, so that a Ctrl+C while it loads cancels the run like any other.
    const { builtinBackend, headlessContext, startProcessTelemetry, stopTelemetry, TELEMETRY_EXIT_BOUND_MS, withTelemetry } = await import("@harness/runner/headless");
    // Claude Code's console exporter writes to stderr; so does this one, and its notes.
    await startProcessTelemetry(io.env, {
      debug: (line) => debugLog("telemetry", line),
      console: (line) => io.stderr.write(`harness: ${line}\n`),
      note: (message) => io.stderr.write(`harness: ${message}\n`),
    });
    telemetryDone = () => stopTelemetry(TELEMETRY_EXIT_BOUND_MS);
    const { envSettingProblems } = await import("@harness/agent/env-settings");
    const problems = envSettingProblems(io.env);
    if (problems.length > 0) return fail(problems.join("; "));
    const outputSchema = command.jsonSchema === undefined ? undefined : await outputSchemaOf(command.jsonSchema);
    if (typeof outputSchema === "string") {
      io.stderr.write(`harness: ${outputSchema}\n`);
      return 1;
    }
    // As Claude Code's stream-json does, the stream opens with the conversation's id, so that a
    // script has it before the run ends, and what the run works with. The result's id is the one
    // to resume: it differs only when another run went on with the same conversation meanwhile
    // (this one is then kept apart).
    const rules = { ...(command.allowedTools && { allow: command.allowedTools }), ...(command.disallowedTools && { deny: command.disallowedTools }) };
    const runOptions = {
      ...(Object.keys(rules).length > 0 && { rules }),
      ...(command.appendSystemPrompt !== undefined && { appendSystemPrompt: command.appendSystemPrompt }),
      // Relative to where the command was typed, as a path on its command line is (not --cwd).
      ...(command.pluginDirs && { pluginDirs: command.pluginDirs.map((dir) => resolve(io.cwd, dir)) }),
      ...flags,
      sessionId: runId,
      ...config.options,
      ...(outputSchema && { outputSchema }),
      ...(command.permissionPromptTool && command.permissionPromptTool !== "stdio" && { permissionPromptTool: command.permissionPromptTool }),
      ...(command.allowBypass && { allowBypassPermissions: true }),
      ...(command.maxThinkingTokens && { thinking: { budgetTokens: command.maxThinkingTokens } }),
      ...(command.projectConfigRoot !== undefined && { projectRoot: resolve(io.cwd, command.projectConfigRoot) }),
      ...(command.managedSettings && { managedSettings: { file: MANAGED_TIER, settings: command.managedSettings.settings } }),
      ...(stream && {
        onReady: (info: RunReadyInfo) => {
          readyModel = info.model;
          stream.opening.ready(info);
        },
      }),
      ...(stream && { onModelEvent: stream.onModelEvent }),
      ...(stream && { onHookEvent: await hookEvents(stream.opening.line, () => runId, command.includeHookEvents === true) }),
    };
    const context = headlessContext({ signal: controller.signal, emit, workspace: cwd });
    /** `session`: what the program driving stream-json input set over its control protocol, and the
     * turn's own stop, changes and approvals (see run/stream/session.ts). */
    const turn = (message: InputMessage, shared?: { resources: AgentResources; budgetSpentUsd: number }, session?: { settings: TurnSettings; controls: TurnControls }) => {
      const set = session?.settings;
      const appendSystemPrompt = [command.appendSystemPrompt, set?.appendSystemPrompt].filter((text) => text !== undefined).join("\n\n");
      // The initialize request's agents win over --agents of the same name, as the later word.
      const agents = set?.agents && [...(runOptions.agents ?? []).filter((agent) => !set.agents!.some((given) => given.name === agent.name)), ...set.agents];
      const controls = session?.controls;
      const permissionMode = set ? set.permissionMode : command.permissionMode;
      const backend = builtinBackend({
        runOptions: {
          ...runOptions,
          // A run option, not the query's: a runner's queries know no dontAsk.
          ...(permissionMode && { permissionMode }),
          ...(appendSystemPrompt !== "" && { appendSystemPrompt }),
          ...(agents && { agents }),
          ...(set?.hooks && { hooks: set.hooks }),
          ...(set?.sdkMcpServers && { sdkMcpServers: set.sdkMcpServers }),
          ...(set?.mcpConfig && { mcpConfig: [...(runOptions.mcpConfig ?? []), set.mcpConfig] }),
          ...(set?.permissionUpdates && { permissionUpdates: set.permissionUpdates }),
          ...(controls && { onPermissionUpdates: controls.keep }),
          ...(set?.disallowedTools && { rules: { ...runOptions.rules, deny: [...(runOptions.rules?.deny ?? []), ...set.disallowedTools] } }),
          ...(set && initializeSettings(set)),
          ...(set?.pluginDirs && { pluginDirs: [...new Set([...(runOptions.pluginDirs ?? []), ...set.pluginDirs.map((dir) => resolve(io.cwd, dir))])] }),
          ...(set?.allowBypass && { allowBypassPermissions: true }),
          ...(set?.thinkingTokens !== undefined && { thinking: set.thinkingTokens > 0 ? { budgetTokens: set.thinkingTokens } : undefined }),
          ...(controls && {
            onReady: (info: RunReadyInfo) => {
              runOptions.onReady?.(info);
              controls.ready(info);
            },
          }),
          ...shared,
          ...(message.images.length > 0 && { images: message.images }),
        },
      });
      return withTelemetry(backend, { sessionId: runId }).run(
        {
          prompt: message.prompt,
          model: set ? set.model : command.model,
          maxTurns: command.maxTurns,
          systemPrompt: set?.systemPrompt ?? command.systemPrompt,
          effort: command.effort,
          cwd,
          history,
          ...(spentBefore && { spentBefore }),
        },
        controls ? { ...context, signal: controls.signal, onConfigure: controls.onConfigure, ...(controls.requestApproval && { requestApproval: controls.requestApproval }) } : context,
      );
    };
    // The JSON formats say a failure in the result; the text format says it on stderr.
    const said = (message: string, status = 1) => (format === "text" ? fail(message, status) : status);
    if (command.inputFormat === "stream-json") {
      // One turn per message, as they come, on resources the turns share (MCP servers, background
      // shells), as in one Claude Code session; a result after each.
      const { createAgentResources } = await import("@harness/agent");
      const { streamSession } = await import("./stream/session.ts");
      const { controlChannel } = await import("./stream/control.ts");
      const { replayLine } = await import("./stream/input.ts");
      const resources = createAgentResources();
      // The settings the turns will load, read as they read them.
      const turnSettings = (set: TurnSettings) => ({ ...runOptions, ...initializeSettings(set), cwd, env: io.env, ...(io.env.HOME !== undefined && { home: io.env.HOME }) });
      const session = streamSession({
        model: command.model,
        permissionMode: command.permissionMode,
        allowBypass: command.allowBypass,
        settingsFlag: command.settings !== undefined,
        askOverStdio: command.permissionPromptTool === "stdio",
        ...(command.managedSettings && { managed: command.managedSettings.settings }),
        startBypass: async (set) => {
          const { bypassBeforeStart } = await import("@harness/agent/run-settings");
          // The mode the session started in, whatever set_permission_mode made of it since.
          return bypassBeforeStart({ ...turnSettings(set), ...(command.permissionMode && { permissionMode: command.permissionMode }) });
        },
        modelRefusal: async (set, model) => {
          const { modelBeforeStart } = await import("@harness/agent/run-settings");
          return modelBeforeStart(turnSettings(set), model);
        },
        env: io.env,
        warn: (message) => io.stderr.write(`harness: ${message}\n`),
      });
      // Control lines go out as they are written: an answer does not wait for the stream's opening.
      const channel = controlChannel(io.stdin ?? process.stdin, (line) => io.stdout.write(line), session.handle, controller.signal);
      session.bind(channel);
      try {
        let status = 0;
        // --max-budget-usd holds for the whole run: each turn counts what the turns before it cost.
        let spent = 0;
        for await (const read of channel.messages) {
          if (!read.ok) {
            // The line is quoted in the message: what in it would act on a terminal is left out.
            io.stderr.write(`harness: --input-format stream-json: ${printable(read.message)}\n`);
            return 1;
          }
          startedAt = performance.now();
          refused = permissionDenials();
          const budget = flags.maxBudgetUsd;
          if (budget !== undefined && spent >= budget) {
            result({ ok: false, message: `The run stopped: what it has cost ($${spent.toFixed(6)}) reached its budget of $${budget}.`, reason: "max_budget" });
            return 1;
          }
          const notRun = session.refusal();
          if (notRun) {
            result({ ok: false, message: notRun });
            status = 1;
            continue;
          }
          await session.changesSettled();
          // Taken: said back as read, before anything of its turn.
          if (command.replayUserMessages && read.message.sent) stream?.opening.line(replayLine(read.message.sent, runId));
          const controls = session.startTurn(controller.signal);
          const outcome = await turn(read.message, { resources, budgetSpentUsd: spent }, { settings: session.settings, controls }).finally(controls.end);
          spent += outcome.usage?.costUsd ?? 0;
          // A turn stopped as asked ended as it should: the run goes on with the next message.
          const interrupted = !outcome.ok && outcome.reason === "cancelled" && controls.interrupted();
          result(outcome, interrupted);
          if (stopStatus) return stopStatus === 1 ? 1 : said("cancelled", stopStatus);
          if (!outcome.ok && outcome.reason === "max_budget") return 1;
          status = outcome.ok || interrupted ? 0 : 1;
        }
        if (stopStatus) return stopStatus === 1 ? 1 : said("cancelled", stopStatus);
        return status;
      } finally {
        await resources.dispose();
      }
    }
    const outcome = await turn({ prompt: command.prompt, images: [] });
    renderer.finish();
    result(outcome);
    if (stopStatus) return stopStatus === 1 ? 1 : said("cancelled", stopStatus);
    return outcome.ok ? 0 : said(outcome.message);
  } catch (err) {
    renderer.finish();
    stream?.opening.end();
    return fail(err instanceof Error ? err.message : String(err));
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
    process.off("SIGHUP", onHup);
    process.stdout.off("error", onPipeError);
    process.stderr.off("error", ignore);
    await telemetryDone?.();
  }
}

/** The settings the initialize request gave the turns, as run options: they replace --settings',
 * and the managed settings join --managed-settings' (run/stream/session.ts). */
function initializeSettings(set: TurnSettings): Pick<RunAgentOptions, "flagSettings" | "managedSettings"> {
  return {
    ...(set.managedSettings && { managedSettings: { file: MANAGED_TIER, settings: set.managedSettings } }),
    ...(set.flagSettings && { flagSettings: set.flagSettings }),
  };
}

/** --json-schema's schema, or what is wrong with it in one line. */
async function outputSchemaOf(text: string): Promise<Record<string, unknown> | string> {
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    return `--json-schema is not JSON (${(error as Error).message})`;
  }
  const { outputSchemaProblem } = await import("@harness/agent");
  const problem = outputSchemaProblem(schema);
  return problem === undefined ? (schema as Record<string, unknown>) : `--json-schema ${problem}`;
}

/** What writes a stream-json run's stdout: its opening line and the lines it holds until then,
 * Claude Code's messages, and the model events (`onModelEvent`): a reply's text as soon as its block
 * ends, then, given `partialModel` (--include-partial-messages), the main agent's partial messages.
 * Imported here so that the runs of the other formats start without the stream's modules. */
async function streamWriters(write: (line: string) => void, runId: string, cwd: string, partialModel: (() => string | undefined) | undefined) {
  const [{ streamOpening }, { streamMessages, systemMessage }] = await Promise.all([import("./stream/init.ts"), import("./stream/messages.ts")]);
  const opening = streamOpening(write, runId, cwd);
  const messages = streamMessages(runId);
  const partial = partialModel && (await import("./stream/partial.ts")).partialMessages(runId, partialModel);
  // The whole text before its block's stop, as Claude Code writes them.
  const onModelEvent = (event: ModelEvent, from?: ModelEventSource) => {
    const lines = from ? messages.modelEvent(event, from.agentId) : [...messages.modelEvent(event), ...(partial ? partial.event(event) : [])];
    for (const line of lines) opening.line(`${JSON.stringify(line)}\n`);
  };
  return { opening, messages, systemMessage, onModelEvent };
}

/** The observer that writes the hooks' lines: SessionStart's always, every hook's with
 * --include-hook-events (`all`). */
async function hookEvents(line: (text: string) => void, sessionId: () => string, all: boolean) {
  return (await import("./stream/hook-events.ts")).hookEventLines(line, sessionId, all);
}

/** An MCP server's news that is no problem: it connected, or its tools changed. */
function quietMcpNotice(event: AgentEvent): boolean {
  return event.type === "notice" && event.level === "info" && /^MCP server \S+ (connected|changed its tools)/.test(event.message);
}

/** Whether the user's, managed or the run's own settings give a key (an apiKeyHelper, or one in
 * their env), looked for only when no key is set. */
async function settingsCredentials(env: Readonly<Record<string, string | undefined>>, flag: unknown): Promise<boolean> {
  const { trustedAnthropicCredentials } = await import("@harness/agent/api-key-helper");
  return trustedAnthropicCredentials({ home: env.HOME ?? homedir(), flag });
}

