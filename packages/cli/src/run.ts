// `harness run`: one headless run of the builtin agent in this process.
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { hasAnthropicCredentials, MISSING_ANTHROPIC_KEY, servedByAnthropic } from "@harness/llm/model-prefix";
import type { Command } from "./args.ts";
import { createRenderer, terminalOptions, type Sink } from "./render.ts";

export type RunIO = {
  stdout: Sink;
  stderr: Sink;
  env: NodeJS.ProcessEnv;
  cwd: string;
};

export type RunCommand = Extract<Command, { kind: "run" }>;

/** Exit status: 0 success, 1 failure, 2 bad usage, 130 cancelled (SIGINT), 143 terminated (SIGTERM),
 * 129 its terminal closed (SIGHUP). */
export async function runCommand(command: RunCommand, io: RunIO): Promise<number> {
  const fail = (message: string, status = 1) => {
    io.stderr.write(`harness: ${message.replace(/\s*\n\s*/g, " ").trim()}\n`);
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

  // Only a model served by the Anthropic API needs the key (bare ids and anthropic/…); ollama/… and
  // openai/… models run without it. Without --model or HARNESS_MODEL the settings may name one: the
  // run then finds out, and the model provider says the same in the same words.
  const model = command.model ?? (io.env.HARNESS_MODEL?.trim() || undefined);
  if (model !== undefined && servedByAnthropic(model) && !hasAnthropicCredentials(undefined, io.env)) return fail(MISSING_ANTHROPIC_KEY);

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

  const renderer = createRenderer(io.stdout, io.stderr, { ...terminalOptions(io), cwd });
  try {
    // Imported here so that usage errors and the checks above answer without loading the agent;
    // after the handlers, so that a Ctrl-C while it loads cancels the run like any other.
    const { builtinBackend, headlessContext } = await import("@harness/runner/headless");
    const { envSettingProblems } = await import("@harness/agent/env-settings");
    const problems = envSettingProblems(io.env);
    if (problems.length > 0) return fail(problems.join("; "));
    const outcome = await builtinBackend().run(
      { prompt: command.prompt, model: command.model, maxTurns: command.maxTurns, permissionMode: command.permissionMode, cwd },
      headlessContext({ signal: controller.signal, emit: renderer.event, workspace: cwd }),
    );
    renderer.finish();
    if (stopStatus) return stopStatus === 1 ? 1 : fail("cancelled", stopStatus);
    return outcome.ok ? 0 : fail(outcome.message);
  } catch (err) {
    renderer.finish();
    return fail(err instanceof Error ? err.message : String(err));
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
    process.off("SIGHUP", onHup);
    process.stdout.off("error", onPipeError);
    process.stderr.off("error", ignore);
  }
}
