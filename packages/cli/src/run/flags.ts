// `harness run`'s sub-agent, cost and conversation flags as `claude -p` takes them (--agents,
// --agent, --max-budget-usd, --fallback-model, --session-id, --fork-session,
// --no-session-persistence): which go together is said here, as bad usage; what their values are
// worth is checked when the run starts (options.ts), a mistake there failing the run.
import type { Command } from "../args.ts";

type RunCommand = Extract<Command, { kind: "run" }>;
type Options = Record<string, string | true | string[]>;

/** Copies the flags from the scanned `options` onto `command`; a one-line usage error when they
 * cannot go together. */
export function takeRunFlags(options: Options, command: RunCommand): string | undefined {
  for (const key of ["agents", "agent", "maxBudgetUsd", "fallbackModel", "sessionId"] as const) {
    const value = options[key];
    if (typeof value === "string") command[key] = value;
  }
  if (options.forkSession) command.forkSession = true;
  if (options.noSessionPersistence) command.noSessionPersistence = true;
  const going = command.continue || command.resume !== undefined;
  if (command.forkSession && !going) return "--fork-session goes with --resume or --continue: it keeps what they go on with under a new id";
  if (command.sessionId !== undefined && going && !command.forkSession) {
    return "--session-id with --continue or --resume needs --fork-session: the conversation gone on with keeps its own id";
  }
  return undefined;
}
