// The client commands. Each checks its input against the state, answers an error frame to the
// client that sent it when the command cannot apply (the state is left as it was), and otherwise
// changes the state and talks to the runner. A command that must wait for something (the runner, a
// stored session) returns a promise: the commands after it wait their turn.
import { ErrorCodes, type DeltaOperation, type HarnessCommand, type HarnessConfig, type JSONValue, type RunConfigureBody } from "@harness/protocol";
import { copyConversation, rewindPoint } from "./conversation.ts";
import type { SessionCore } from "./core.ts";
import { runnerMode } from "./permission-modes.ts";
import { steerDroppedOps, steerQueuedOps, steerSentOps } from "./queued-steers.ts";
import { watchIdleShells } from "./idle-shells.ts";
import type { Connection, RunnerPort } from "./ports.ts";
import { isRunActive } from "./run-outcome.ts";
import { cancel, describe, forgetSteer, noteSteer, sendControl, submitPrompt, whenSteerLost } from "./run-driver.ts";

/** Error codes of commands, beyond the protocol's. */
export const CommandErrorCodes = {
  /** `cancel` with no run in progress. */
  notRunning: "not_running",
  /** `resume` in a session that already has messages. */
  notEmpty: "not_empty",
  /** The runner refused or could not be reached. */
  runner: "runner_error",
  /** A steer message the run ended (cancelled, failed) without passing to the model. */
  notDelivered: "not_delivered",
  /** A new run while the host is stopping (SessionOptions.refusesRuns), a steer's left over too. */
  stopping: "stopping",
} as const;

type Reply = (message: string, code: string) => void;

export function executeCommand(core: SessionCore, conn: Connection, index: number, command: HarnessCommand): void | Promise<void> {
  const reply: Reply = (message, code) => core.sendError(conn, message, code, index);
  switch (command.type) {
    case "submit":
      return submit(core, reply, command.prompt);
    case "cancel":
      if (!core.run) return reply("nothing to cancel: no run is in progress", CommandErrorCodes.notRunning);
      return cancel(core, core.run);
    case "steer":
      return steer(core, reply, command.message);
    case "approve":
    case "deny":
      return answer(core, reply, command);
    case "configure":
      return configure(core, reply, command.config);
    case "resume":
      return resume(core, reply, command.prompt, command.sessionId);
    case "rewind":
      return rewind(core, reply, command.messageId, command.dryRun === true);
    case "stop-agent":
      return stopAgent(core, reply, command.toolCallId);
    case "background":
      return background(core, reply, command.toolCallId);
    case "kill-shell":
      return killShell(core, reply, command.shellId);
  }
}

/** Stops background shell `shellId`: through the run under way, else straight on the runner (which
 * keeps the shells between runs). The state's `shells` then says it was killed. */
function killShell(core: SessionCore, reply: Reply, shellId: string): void | Promise<void> {
  const run = core.run;
  const direct = core.options.runner.killShell?.bind(core.options.runner);
  if (!run && !direct) return reply(`kill-shell: no run is in progress; between runs, send the prompt "/tasks kill ${shellId}"`, CommandErrorCodes.notRunning);
  const shell = core.state.shells?.find((s) => s.id === shellId);
  if (!shell) return reply(`kill-shell: no background shell "${shellId}"${core.state.shells?.length ? `; the shells are ${core.state.shells.map((s) => s.id).join(", ")}` : ""}`, ErrorCodes.notFound);
  if (shell.status !== "running") return reply(`kill-shell: background shell "${shellId}" is not running (${shell.status})`, ErrorCodes.badCommand);
  if (run) return sendControl(core, run, { type: "kill-shell", shellId }, (why) => reply(`kill-shell failed: ${why}`, CommandErrorCodes.runner));
  return killBetweenRuns(core, reply, shellId, direct!);
}

async function killBetweenRuns(core: SessionCore, reply: Reply, shellId: string, kill: NonNullable<RunnerPort["killShell"]>): Promise<void> {
  let answer;
  try {
    answer = await kill(shellId);
  } catch (error) {
    answer = { ok: false as const, message: describe(error) };
  }
  if (!answer.ok) return reply(`kill-shell failed: ${answer.message}`, CommandErrorCodes.runner);
  // The watch of the shells (running already, or started now) brings the state the killed shell.
  watchIdleShells(core);
}

/** Moves the run's running Bash call `toolCallId` (without it, every one running) to the
 * background; the run goes on. */
function background(core: SessionCore, reply: Reply, toolCallId: string | undefined): void {
  const run = core.run;
  if (!run) return reply("background: no run is in progress", CommandErrorCodes.notRunning);
  const calls = core.state.messages.flatMap((m) => m.toolCalls ?? []);
  if (toolCallId === undefined) {
    if (!calls.some((c) => c.name === "Bash" && c.status === "running")) return reply("background: no Bash call of the run in progress is running", ErrorCodes.notFound);
    return sendControl(core, run, { type: "background" }, (why) => reply(`background failed: ${why}`, CommandErrorCodes.runner));
  }
  // The last of that id: a steer the run took moved its reply on to a new message.
  const call = calls.findLast((c) => c.id === toolCallId);
  if (!call) return reply(`background: no tool call "${toolCallId}" in the run in progress`, ErrorCodes.notFound);
  if (call.name !== "Bash") return reply(`background: "${toolCallId}" is a ${call.name} call; only a Bash call goes to the background`, ErrorCodes.badCommand);
  if (call.status !== "running") return reply(`background: the Bash call "${toolCallId}" is not running (${call.status})`, ErrorCodes.badCommand);
  sendControl(core, run, { type: "background", toolUseId: toolCallId }, (why) => reply(`background failed: ${why}`, CommandErrorCodes.runner));
}

/** The names the Task tool goes by (Claude Code's newer one is Agent). */
const TASK_TOOLS: ReadonlySet<string> = new Set(["Task", "Agent"]);

/** Stops the sub-agent of the run's running Task call `toolCallId`; the run goes on. */
function stopAgent(core: SessionCore, reply: Reply, toolCallId: string): void {
  const run = core.run;
  // Searched from the end: a steer the run took moved its reply on to a new message.
  const call = run && core.state.messages.findLast((m) => m.toolCalls?.some((c) => c.id === toolCallId))?.toolCalls?.find((c) => c.id === toolCallId);
  if (!run || !call || !TASK_TOOLS.has(call.name) || call.status !== "running") {
    return reply(`stop-agent: no Task call "${toolCallId}" of the run in progress is running a sub-agent`, ErrorCodes.notFound);
  }
  sendControl(core, run, { type: "stop-agent", toolUseId: toolCallId }, (why) => reply(`stop-agent failed: ${why}`, CommandErrorCodes.runner));
}

function busy(core: SessionCore): boolean {
  return core.run !== undefined || isRunActive(core.state);
}

function submit(core: SessionCore, reply: Reply, prompt: string): void {
  if (busy(core)) return reply("a run is already in progress; cancel it or wait for it to finish", ErrorCodes.busy);
  const refused = core.options.refusesRuns?.();
  if (refused !== undefined) return reply(refused, CommandErrorCodes.stopping);
  submitPrompt(core, prompt);
}

function steer(core: SessionCore, reply: Reply, message: string): void {
  const run = core.run;
  if (!run) return submit(core, reply, message);
  noteSteer(run, message, (why, refusal) => {
    if (refusal !== undefined) return reply(`steer ${quoteStart(message)} was not delivered: ${why}, and ${refusal}`, CommandErrorCodes.stopping);
    reply(`steer ${quoteStart(message)} was not delivered: ${why}; the model never read it. Send it again to start a new run with it.`, CommandErrorCodes.notDelivered);
  });
  core.commit(steerSentOps(core.state, message));
  const onFailure = (why: string, status?: number) => {
    const lost = () => {
      if (!forgetSteer(run, message)) return;
      reply(`steer failed: ${why}`, CommandErrorCodes.runner);
      commitAny(core, steerDroppedOps(core.state, message));
    };
    // 409: the run finished before the runner took it; a run that completes sends it on as the next prompt.
    if (status === 409) whenSteerLost(core, run, message, lost);
    else lost();
  };
  sendControl(core, run, { type: "steer", message }, onFailure, () => {
    if (core.run === run) commitAny(core, steerQueuedOps(core.state, message));
  });
}

/** Commits `ops` as a batch of their own, unless there are none or the session is closed. */
function commitAny(core: SessionCore, ops: DeltaOperation[]): void {
  if (ops.length > 0 && !core.ended) core.commit(ops);
}

/** The start of a message, quoted, to name it in an error. */
function quoteStart(message: string): string {
  const line = message.split("\n", 1)[0];
  return JSON.stringify(line.length > 60 || line !== message ? `${[...line].slice(0, 60).join("")}…` : message);
}

function answer(core: SessionCore, reply: Reply, command: Extract<HarnessCommand, { type: "approve" | "deny" }>): void {
  const { toolCallId } = command;
  const run = core.run;
  if (!run || !core.state.pendingApprovals?.some((p) => p.toolCallId === toolCallId)) {
    return reply(`${command.type}: no tool call "${toolCallId}" is waiting for approval`, ErrorCodes.notFound);
  }
  if (run.answered.has(toolCallId)) return reply(`${command.type}: tool call "${toolCallId}" was already answered`, ErrorCodes.badCommand);
  run.answered.add(toolCallId);
  const control =
    command.type === "approve"
      ? { type: "approve" as const, toolUseId: toolCallId }
      : { type: "deny" as const, toolUseId: toolCallId, ...(command.reason !== undefined ? { reason: command.reason } : {}) };
  sendControl(core, run, control, (why) => {
    run.answered.delete(toolCallId);
    reply(`${command.type} failed: ${why}`, CommandErrorCodes.runner);
  });
}

/** The wire's configuration as the runner takes it. */
export function runConfig(config: HarnessConfig): RunConfigureBody {
  const body: RunConfigureBody = {};
  if (config.model !== undefined) body.model = config.model;
  if (config.systemPrompt !== undefined) body.systemPrompt = config.systemPrompt;
  if (config.maxTurns !== undefined) body.maxTurns = config.maxTurns;
  if (config.effort !== undefined) body.effort = config.effort;
  if (config.permissionMode !== undefined) body.permissionMode = runnerMode(config.permissionMode);
  return body;
}

function configure(core: SessionCore, reply: Reply, config: HarnessConfig): void | Promise<void> {
  const modelProblem = config.model === undefined ? undefined : core.options.checkModel?.(config.model);
  if (modelProblem instanceof Promise) return modelProblem.then((problem) => configureChecked(core, reply, config, problem));
  configureChecked(core, reply, config, modelProblem);
}

/** `config` applied, unless `modelProblem` says why its model cannot be used. */
function configureChecked(core: SessionCore, reply: Reply, config: HarnessConfig, modelProblem: string | undefined): void {
  if (modelProblem !== undefined) return reply(`configure: model "${config.model}" cannot be used here: ${modelProblem}`, ErrorCodes.badCommand);
  const current = core.state.config;
  // A setting sent again as it is changes nothing: no batch to store and replay, nothing to the run.
  const entries = Object.entries(config).filter(([key, value]) => value !== undefined && current?.[key as keyof HarnessConfig] !== value);
  if (entries.length === 0) return;
  const ops: DeltaOperation[] = current
    ? entries.map(([key, value]) => ({ type: "set", path: ["config", key], value: value as JSONValue }))
    : [{ type: "set", path: ["config"], value: Object.fromEntries(entries) as JSONValue }];
  core.commit(ops);
  const run = core.run;
  if (!run) return;
  // A mode the run is to change to supersedes the ones it says until it has (run-driver.ts); the
  // mode it is in already, it says nothing of. What the configuration said before is kept for a
  // refusal that leaves the run in plan mode, which the configuration cannot name.
  const modeSent = entries.some(([key]) => key === "permissionMode") && config.permissionMode !== undefined ? { mode: runnerMode(config.permissionMode), before: current?.permissionMode } : undefined;
  if (modeSent) run.modeSent = modeSent;
  // 409: the run ended before the runner took it; the setting is stored for the next run all the same.
  sendControl(core, run, { type: "configure", config: runConfig(config) }, (why, status) => {
    if (status === 409) return;
    // Refused: the run stays in its mode, and its own changes count again.
    if (modeSent && run.modeSent === modeSent) run.modeSent = undefined;
    reply(`configure failed for the run in progress: ${why}`, CommandErrorCodes.runner);
  });
}

async function resume(core: SessionCore, reply: Reply, prompt: string, sessionId: string): Promise<void> {
  if (sessionId === core.options.sessionId) return submit(core, reply, prompt);
  if (busy(core) || core.state.messages.length > 0) {
    return reply("resume needs an empty session; fork it instead", CommandErrorCodes.notEmpty);
  }
  const refused = core.options.refusesRuns?.();
  if (refused !== undefined) return reply(refused, CommandErrorCodes.stopping);
  let peer;
  try {
    peer = await core.options.loadPeer?.(sessionId);
  } catch (error) {
    core.report(error, `loading session ${sessionId} to resume it`);
    return reply(`resume: cannot load session "${sessionId}": ${describe(error)}`, ErrorCodes.internal);
  }
  if (!peer) return reply(`resume: no session "${sessionId}"`, ErrorCodes.notFound);
  if (busy(core) || core.state.messages.length > 0) {
    return reply("resume needs an empty session; fork it instead", CommandErrorCodes.notEmpty);
  }
  const copy = copyConversation(peer);
  if (!copy.ok) return reply(`resume: ${copy.message}`, copy.code);
  // The conversation goes on as it was set up (model, mode, …), but for what this session set
  // already. Its files stay in the other session's workspace: fork copies those too.
  const config = copy.value.state.config ? { ...copy.value.state.config, ...core.state.config } : undefined;
  const ops: DeltaOperation[] = [{ type: "set", path: ["messages"], value: copy.value.state.messages as JSONValue }];
  if (config && Object.keys(config).length > Object.keys(core.state.config ?? {}).length) ops.push({ type: "set", path: ["config"], value: config as JSONValue });
  core.commit(ops);
  core.transcript = copy.value.transcript;
  core.marks = copy.value.marks;
  submitPrompt(core, prompt);
}

async function rewind(core: SessionCore, reply: Reply, messageId: string, dryRun: boolean): Promise<void> {
  if (busy(core)) return reply("rewind: a run is in progress; cancel it or wait for it to finish", ErrorCodes.busy);
  const point = rewindPoint(core.conversation(), messageId);
  if (!point.ok) return reply(point.message, point.code);
  let answer;
  try {
    answer = await core.options.runner.rewind({ userMessageId: messageId, dryRun });
  } catch (error) {
    answer = { ok: false as const, message: describe(error) };
  }
  if (!answer.ok) {
    if (answer.status === 404) return reply(`rewind: no checkpoint of the files before message "${messageId}"`, ErrorCodes.notFound);
    if (answer.status === 409) return reply(`rewind: the runner is busy: ${answer.message}`, ErrorCodes.busy);
    return reply(`rewind failed: ${answer.message}`, CommandErrorCodes.runner);
  }
  if (dryRun) {
    core.commit([{ type: "set", path: ["rewindPreview"], value: { messageId, files: answer.value.files } as JSONValue }]);
    return;
  }
  // Nothing else ran meanwhile (commands wait their turn and no run was in flight), so the point
  // found before still holds.
  const { index, transcriptLength } = point.value;
  const ops: DeltaOperation[] = [{ type: "set", path: ["messages"], value: core.state.messages.slice(0, index) as JSONValue }];
  if (core.state.rewindPreview) ops.push({ type: "set", path: ["rewindPreview"], value: null });
  if (core.state.status !== "idle") ops.push({ type: "set", path: ["status"], value: "idle" });
  if (core.state.error) ops.push({ type: "set", path: ["error"], value: "" });
  core.commit(ops);
  core.transcript = core.transcript.slice(0, transcriptLength);
  const kept = new Set(core.state.messages.map((m) => m.id));
  for (const id of Object.keys(core.marks)) if (!kept.has(id)) delete core.marks[id];
  core.conversationChanged();
}
