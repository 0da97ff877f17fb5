// One run of Claude Code: a Claude Code process per run, in streaming input mode so that the run
// can be steered, configured, approved and interrupted while in flight; continued across runs with
// `resume`, its transcripts kept under the runner's state directory.
import { mkdir } from "node:fs/promises";
import { resolve } from "node:path";
import { hasAnthropicCredentials, MISSING_ANTHROPIC_KEY } from "@harness/llm/model-prefix";
import { query as startQuery, type ModelUsage, type SDKResultMessage, type SettingSource } from "@anthropic-ai/claude-agent-sdk";
import type { AgentEvent, ModelFailure, RunConfigureBody, RunnerQuery, TranscriptMessage, Usage } from "@harness/protocol";
import type { BackendContext, RunOutcome } from "../../backend.ts";
import { createEventMapper, type MappedRun } from "./events.ts";
import { hintedReady } from "./hints.ts";
import { createInputQueue } from "./input.ts";
import {
  claudeCodeDirs,
  claudeCodeEnv,
  claudeCodeModel,
  claudePermissionMode,
  defaultClaudeCodeModel,
  findClaudeCodeExecutable,
  launchOptions,
  sessionStored,
  type ResumePlan,
} from "./options.ts";
import { createToolGate } from "./permissions.ts";
import { readStore, recordRun, subtractTotals, ZERO_TOTALS, type ForkPoint, type StoreData, type Totals } from "./store.ts";
import { answerCost, isCostPrompt } from "./cost.ts";
import { apiMsOf, runningApiMs, spentAfter, wallMsOf } from "./spent.ts";
import { abortedMessage } from "../../runs/abort-reason.ts";
import { sandboxHiddenPaths } from "../registry.ts";
import { secretHiding } from "@harness/llm/hidden-secrets";
import { claudeCodeSecrets } from "./secrets.ts";
import { failedServerNotices } from "./mcp-status.ts";

export const NOT_INSTALLED_MESSAGE =
  "Claude Code is not installed: the @anthropic-ai/claude-agent-sdk package for this platform (which carries the claude binary) is missing";
export const AUTH_FAILED_MESSAGE = "Claude Code could not authenticate: the model API rejected the API key (401). Check ANTHROPIC_API_KEY.";
export const HISTORY_NOTICE =
  "Claude Code continues a conversation from its own session (resumeSessionId); the earlier messages sent as history were not given to it.";
export const unknownSessionNotice = (sessionId: string) =>
  `Claude Code session ${sessionId} is not kept in this workspace's state, so this run starts a new Claude Code conversation; the earlier messages were not given to it.`;

export type RunDeps = {
  executable?: string;
  runnerEnv: Record<string, string | undefined>;
  extraEnv?: Record<string, string>;
  settingSources: SettingSource[];
  /** How long an interrupted Claude Code gets to stop before its process is killed. */
  interruptGraceMs: number;
};

const STDERR_TAIL = 4000;

/** Why a query's run options are refused: the flags they come from (`harness chat`'s
 * --append-system-prompt, --add-dir…) are the builtin agent's, as on `harness run`. */
export function runOptionsRefused(names: string): string {
  return `the claude-code backend takes no run options (${names}; from flags such as --append-system-prompt, --allowedTools or --add-dir): they are the builtin backend's; start without them, or with HARNESS_BACKEND=builtin`;
}

export async function runClaudeCode(query: RunnerQuery, ctx: BackendContext, deps: RunDeps): Promise<RunOutcome> {
  const given = Object.keys(query.runOptions ?? {});
  if (given.length > 0) return { ok: false, message: runOptionsRefused(given.join(", ")) };
  if (isCostPrompt(query.prompt)) return answerCost(query, ctx);
  const apiKey = query.anthropicApiKey || deps.runnerEnv.ANTHROPIC_API_KEY;
  const authToken = apiKey ? undefined : query.anthropicAuthToken || deps.runnerEnv.ANTHROPIC_AUTH_TOKEN;
  // Vertex AI and Bedrock take the cloud's credentials, which Claude Code finds for itself.
  if (!hasAnthropicCredentials(apiKey || authToken, deps.runnerEnv)) return { ok: false, message: MISSING_ANTHROPIC_KEY };
  const executable = deps.executable ?? findClaudeCodeExecutable();
  if (!executable) return { ok: false, message: NOT_INSTALLED_MESSAGE };
  const model = query.model === undefined ? { ok: true as const, model: undefined } : claudeCodeModel(query.model);
  if (!model.ok) return { ok: false, message: model.error };
  const fallback = defaultClaudeCodeModel(deps.runnerEnv);
  if (!fallback.ok) return { ok: false, message: `${fallback.error} (HARNESS_MODEL or ANTHROPIC_MODEL)` };
  if (ctx.signal.aborted) return { ok: false, message: abortedMessage(ctx.signal) };

  const dirs = claudeCodeDirs(ctx.stateDir);
  for (const dir of Object.values(dirs)) await mkdir(dir, { recursive: true });
  const stored = await readStore(ctx.stateDir);
  const cwd = query.cwd ? resolve(ctx.workspace, query.cwd) : ctx.workspace;
  const env = claudeCodeEnv({ apiKey, authToken, stateDir: ctx.stateDir, runnerEnv: deps.runnerEnv, extra: deps.extraEnv, defaultModel: fallback.model, cloud: query });
  // Claude Code's own words (its notices, stderr, errors) may quote the secrets it was given.
  const { hide } = secretHiding(await claudeCodeSecrets({ env, runnerEnv: deps.runnerEnv, settingSources: deps.settingSources, configDir: dirs.configDir, home: dirs.home, cwd }));

  let settled = false;
  const emit = (event: AgentEvent) => {
    if (!settled) ctx.emit(event.type === "notice" ? { ...event, message: hide(event.message) } : event);
  };
  const resumed = query.resumeSessionId;
  const cut = resumed === undefined || !Object.hasOwn(stored.cuts, resumed) ? undefined : stored.cuts[resumed];
  let resume = resumePlan(resumed, cut);
  if (resume && !(await sessionStored(dirs.configDir, resume.sessionId))) {
    // e.g. a conversation copied from another session, whose Claude Code state is elsewhere.
    emit({ type: "notice", level: "warning", message: unknownSessionNotice(resume.sessionId) });
    resume = undefined;
  } else if (query.history?.length && !resumed) {
    emit({ type: "notice", level: "warning", message: HISTORY_NOTICE });
  }

  let mode = query.permissionMode ?? "default";
  const input = createInputQueue();
  input.push(query.prompt);
  // Asked of the query made below, once its init has come (that is, once `q` is set).
  const ready = hintedReady(emit, () => mapper.run.sessionId, () => q.supportedCommands());
  const mapper = createEventMapper(ready.emit, stored.rates);
  const abortController = new AbortController();
  let stderr = "";
  const q = startQuery({
    prompt: input.messages,
    options: launchOptions({
      query: { ...query, model: model.model },
      resume,
      cwd,
      sandboxHidden: sandboxHiddenPaths(deps.runnerEnv),
      executable,
      env,
      settingSources: deps.settingSources,
      canUseTool: createToolGate({
        mode: () => mode,
        requestApproval: ctx.requestApproval,
        onModeChange: (listener) => ctx.onConfigure((config) => config.permissionMode && listener(config.permissionMode)),
        onPlanApproved: (next) => {
          mode = next;
          emit({ type: "mode.changed", permissionMode: next });
        },
      }),
      abortController,
      stderr: (chunk) => {
        stderr = (stderr + chunk).slice(-STDERR_TAIL);
      },
    }),
  });

  // The steer's user.message comes when Claude Code takes it (its echo), at a turn boundary.
  const deliver = (text: string) => input.push(text);
  for (const text of ctx.steering.take()) deliver(text);
  const stopSteering = ctx.steering.subscribe(deliver);
  // After a result the run is over: later steer messages wait for the next run, and once the input
  // ends, the SDK closes Claude Code's stdin when the last message sent has been answered.
  const finishInput = () => {
    stopSteering();
    input.end();
  };

  const stopConfigure = ctx.onConfigure((config) => {
    const before = mode;
    if (config.permissionMode) mode = config.permissionMode;
    void applyConfiguration(config, {
      setPermissionMode: (m) => q.setPermissionMode(claudePermissionMode(m)),
      setModel: async (wanted) => {
        const next = claudeCodeModel(wanted);
        if (!next.ok) throw new Error(next.error);
        await q.setModel(next.model);
      },
      setEffort: (effort) => q.applyFlagSettings({ effortLevel: effort }),
      notice: (level, message) => emit({ type: "notice", level, message }),
      // Claude Code stays in the mode it was in: the session is told, so that it does not show the
      // refused one (unless another was configured meanwhile).
      modeRefused: (wanted) => {
        if (mode !== wanted) return;
        mode = before;
        emit({ type: "mode.changed", permissionMode: before, refused: wanted });
      },
    });
  });

  let cancelled = false;
  let killTimer: NodeJS.Timeout | undefined;
  const onAbort = () => {
    cancelled = true;
    finishInput();
    q.interrupt().catch(() => {});
    killTimer = setTimeout(() => abortController.abort(), deps.interruptGraceMs);
  };
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  if (ctx.signal.aborted) onAbort();

  const tellFailedServers = failedServerNotices(() => q.mcpServerStatus(), (message) => emit({ type: "notice", level: "warning", message }));
  let thrown: string | undefined;
  try {
    for await (const message of q) {
      mapper.handle(message);
      await tellFailedServers(message);
      if (mapper.run.authFailed) break;
      if (message.type === "result") finishInput();
    }
  } catch (err) {
    thrown = err instanceof Error ? err.message : String(err);
  } finally {
    ready.end();
    ctx.signal.removeEventListener("abort", onAbort);
    clearTimeout(killTimer);
    stopConfigure();
    finishInput();
    q.close();
  }

  const run = mapper.run;
  const totals = run.results.length > 0 ? totalsOf(run.results) : undefined;
  const previous = previousTotals(stored, run.sessionId, resume);
  const own = totals && previous ? ownTotals(totals, previous) : undefined;
  if (run.sessionId && totals) {
    const forked = cut !== undefined && run.sessionId !== resumed;
    try {
      await recordRun(ctx.stateDir, {
        sessionId: run.sessionId,
        // A result of a failed start may carry zeroed totals: the session's are not lost by it.
        // Others are what Claude Code goes on from when the session is resumed next.
        totals: previous && totals.inputTokens + totals.outputTokens === 0 ? previous : { ...totals, apiMs: apiMsReached(totals, own && previous) },
        cutDone: forked ? resumed : undefined,
        rates: run.rates,
        checkpoint:
          query.userMessageId && run.promptUuid
            ? {
                userMessageId: query.userMessageId,
                sessionId: run.sessionId,
                checkpointUuid: run.promptUuid,
                cwd: resolve(ctx.workspace, query.cwd ?? "."),
                created: run.createdFiles,
                lastUuid: run.lastUuid,
                origin: forked && cut ? cut : undefined,
              }
            : undefined,
      });
    } catch (err) {
      emit({ type: "notice", level: "warning", message: `cannot save the run's checkpoint: ${(err as Error).message}` });
    }
  }
  settled = true;

  const transcript: TranscriptMessage[] = [...(query.history ?? [])];
  if (run.promptsTaken === 0) transcript.push({ role: "user", content: query.prompt });
  transcript.push(...run.transcript);
  const sessionId = run.sessionId;

  const usage = usageOfRun(own, run);
  const apiMs = apiMsOf(run.results, own && previous?.apiMs);
  const spent = spentAfter(query.spentBefore, { usage, calls: run.calls.size, apiMs, wallMs: wallMsOf(run.results) });
  // A run that fails or is stopped still paid for the model calls it made.
  const paid = usage.inputTokens + usage.outputTokens > 0 ? { usage, turns: run.turns } : {};
  if (cancelled) return { ok: false, message: abortedMessage(ctx.signal), reason: "cancelled", transcript, sessionId, ...paid, spent, apiMs };
  if (run.authFailed) return { ok: false, message: AUTH_FAILED_MESSAGE, transcript, sessionId };
  const last = run.results.at(-1);
  if (!last) {
    const detail = thrown ?? (stderr.trim() || "its process ended without a result");
    return { ok: false, message: hide(`Claude Code failed: ${detail}`), transcript, sessionId, ...paid, spent };
  }
  const said = resultFailure(last);
  const failure = said === undefined ? undefined : hide(said);
  if (failure) {
    const modelFailure = modelFailureOf(last, failure);
    return { ok: false, message: failure, ...(last.subtype === "error_max_turns" && { reason: "max_turns" as const }), ...(modelFailure && { modelFailure }), transcript, sessionId, ...paid, spent, apiMs };
  }
  // A run that made no model call ends with Claude Code's own words (a hook that blocked the prompt,
  // a local command's output), which may quote the run's secrets as its notices may.
  const result = last.subtype !== "success" ? "" : run.calls.size === 0 ? hide(last.result) : last.result;
  return { ok: true, result, usage, transcript, sessionId, turns: run.turns, model: run.model, spent, apiMs };
}

/** Resuming a session continues all of it, unless a rewind cut it: then the conversation is forked
 * at the cut (or started afresh when nothing before the rewound turn is kept). */
function resumePlan(sessionId: string | undefined, cut: ForkPoint | null | undefined): ResumePlan | undefined {
  if (sessionId === undefined || cut === null) return undefined;
  return cut === undefined ? { sessionId } : { sessionId: cut.sessionId, at: cut.at };
}

/** The totals the run's session had before it: a fork starts from those of the session it forks, a
 * new session from none. Undefined when they are not known: a session resumed (or forked) whose
 * totals the store does not hold (a file of another version, or an unreadable one, counts as
 * empty), whose results count the earlier runs' calls too. */
function previousTotals(stored: StoreData, sessionId: string | undefined, resume: ResumePlan | undefined): Totals | undefined {
  const own = sessionId === undefined ? undefined : stored.sessions[sessionId];
  if (own) return own;
  if (!resume) return ZERO_TOTALS;
  return resume.at ? stored.sessions[resume.sessionId] : undefined;
}

/** The run's part of its session's totals: their growth. Totals below those before in some count do
 * not continue them (a transcript that kept none, a /clear; a fork, even from an earlier point,
 * starts from the whole forked session's totals and so continues them): the run's part is not known
 * from them. */
function ownTotals(totals: Totals, previous: Totals): Totals | undefined {
  const keys = ["inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens"] as const;
  return keys.every((key) => totals[key] >= previous[key]) ? subtractTotals(totals, previous) : undefined;
}

/** Why a result message is a failure, in words, or undefined when it is a success. */
export function resultFailure(result: SDKResultMessage): string | undefined {
  if (result.subtype === "success") return result.is_error ? result.result || "Claude Code reported an error" : undefined;
  const details = result.errors.filter((e) => !e.startsWith("[ede_diagnostic]")).join("; ");
  switch (result.subtype) {
    case "error_max_turns":
      return `Claude Code reached the maximum number of turns for the run (${result.num_turns})`;
    case "error_max_budget_usd":
      return "Claude Code reached the run's budget";
    case "error_max_structured_output_retries":
      return "Claude Code could not produce the requested structured output";
    default:
      return details ? `Claude Code failed: ${details}` : "Claude Code failed while running";
  }
}

/** The model request failure a failed result tells of (its words, `failure`): Claude Code ends a run
 * whose API request failed for good with a "success" result marked is_error, and the API's status
 * when it had one. */
export function modelFailureOf(result: SDKResultMessage, failure: string | undefined): ModelFailure | undefined {
  if (failure === undefined || result.subtype !== "success" || !result.is_error) return undefined;
  const status = result.api_error_status;
  return { ...(typeof status === "number" && { status }), error: failure };
}

/** Claude Code's running totals for its session after the run's results: over every model it used
 * (sub-agents included), as the last result says them, and its running time waiting for them. */
function totalsOf(results: SDKResultMessage[]): Totals {
  const result = results.at(-1)!;
  const models: ModelUsage[] = Object.values(result.modelUsage ?? {});
  const sum = (pick: (m: ModelUsage) => number) => models.reduce((n, m) => n + (pick(m) || 0), 0);
  return {
    inputTokens: sum((m) => m.inputTokens),
    outputTokens: sum((m) => m.outputTokens),
    cacheReadTokens: sum((m) => m.cacheReadInputTokens),
    cacheWriteTokens: sum((m) => m.cacheCreationInputTokens),
    costUsd: result.total_cost_usd ?? 0,
    apiMs: runningApiMs(results),
  };
}

/** The running API time to keep for the session: a result that made no model call (a local command
 * such as /context) says 0 before the next call restores it, so totals that continue the ones before
 * keep the higher. */
function apiMsReached(totals: Totals, continued: Totals | undefined): number {
  return Math.max(totals.apiMs ?? 0, continued?.apiMs ?? 0);
}

/** The run's own usage, as the session counts it at the run's end: Claude Code's own figures when
 * they can be told apart from the earlier runs' (`own`, the growth of its session's totals: every
 * call it made, sub-agents' and its side calls included, priced by Claude Code). The calls reported
 * while the run went on were estimates (priced at Claude Code's rate for the model once a result
 * has shown it, at the price list's before; a sub-agent's call with the output count it began
 * with until the real one is told), and the session replaces their sum by this figure when the run
 * ends: that correction is the only step the cost takes then. Otherwise (no totals, zeroed ones, a
 * baseline not known, or figures that miss calls the run saw) the calls the run reported, each
 * once by its id, as last reported. */
function usageOfRun(own: Totals | undefined, run: MappedRun): Usage {
  const seen: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  for (const call of run.calls.values()) {
    seen.inputTokens += call.inputTokens;
    seen.outputTokens += call.outputTokens;
    seen.cacheReadTokens! += call.cacheReadTokens ?? 0;
    seen.cacheWriteTokens! += call.cacheWriteTokens ?? 0;
    if (call.costUsd !== undefined) seen.costUsd = (seen.costUsd ?? 0) + call.costUsd;
  }
  return own && own.inputTokens + own.outputTokens > 0 && own.inputTokens >= seen.inputTokens ? own : seen;
}

type Configurable = {
  setPermissionMode(mode: NonNullable<RunConfigureBody["permissionMode"]>): Promise<void>;
  setModel(model: string): Promise<void>;
  setEffort(effort: NonNullable<RunConfigureBody["effort"]>): Promise<void>;
  notice(level: "info" | "warning", message: string): void;
  /** Claude Code did not take the permission mode `wanted`. */
  modeRefused?(wanted: NonNullable<RunConfigureBody["permissionMode"]>): void;
};

/** Applies a configuration change to the running Claude Code; what it cannot change now is said. */
export async function applyConfiguration(config: RunConfigureBody, target: Configurable): Promise<void> {
  const attempt = async (what: string, change: () => Promise<void>): Promise<boolean> => {
    try {
      await change();
      return true;
    } catch (err) {
      target.notice("warning", `Claude Code did not take the new ${what}: ${(err as Error).message}`);
      return false;
    }
  };
  if (config.permissionMode && !(await attempt("permission mode", () => target.setPermissionMode(config.permissionMode!)))) {
    target.modeRefused?.(config.permissionMode);
  }
  if (config.model) await attempt("model", () => target.setModel(config.model!));
  if (config.effort) await attempt("effort", () => target.setEffort(config.effort!));
  const later = [config.maxTurns !== undefined && "maxTurns", config.systemPrompt !== undefined && "systemPrompt"].filter(Boolean);
  if (later.length > 0) {
    target.notice("info", `Claude Code takes ${later.join(" and ")} when it starts: the change applies from the next run.`);
  }
}
