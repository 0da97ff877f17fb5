// A tool call made directly on a runner, not by a model: one of the session's tools run with a run's
// machinery (its settings, permission rules and mode, hooks, sandbox and environment).
//
//   POST /tools/invoke  RunnerToolCall → 200 text/event-stream of RunnerEvent: run.started · notice* ·
//                       tool.started (once the permission check let the call run) · tool.output* ·
//                       tool.completed (its result, bounded as the model's is; `denied` and
//                       `needsApproval` when refused) · run.completed {result} | run.error.
//                       400 bad body or an input the tool's schema refuses (the message names the
//                       field), 404 no such tool, 409 while a run (or another call) is in flight,
//                       422 the configuration refuses runs, 501 a backend that runs no tool by itself.
//   Closing the request stops the call (a command's processes are killed).
//
// Nobody is asked to approve a direct call: one that would ask is refused (tool.completed with
// `denied` and `needsApproval`), as in a headless run. It takes no file checkpoint: a rewind does not
// undo it.
import { z } from "zod";
import { idOfAtMost, MAX_ID_CHARS } from "./runner-control.ts";
import { RunnerQueryFields, withAwsPairs } from "./runner.ts";

export const RunnerToolCallSchema = withAwsPairs(
  RunnerQueryFields.pick({
    model: true,
    cwd: true,
    anthropicApiKey: true,
    anthropicAuthToken: true,
    openaiApiKey: true,
    awsAccessKeyId: true,
    awsSecretAccessKey: true,
    awsSessionToken: true,
    awsBearerTokenBedrock: true,
    googleAccessToken: true,
    permissionMode: true,
    backend: true,
    requestId: true,
    runOptions: true,
    mcpApprovals: true,
    debugLabel: true,
    telemetry: true,
  })
    .extend({
      /** The tool, by the name the model calls it. */
      toolName: idOfAtMost(MAX_ID_CHARS).min(1, "must not be empty"),
      /** Its input, as the model would give it. */
      input: z.record(z.string(), z.unknown()),
    })
    .strict(),
);
export type RunnerToolCall = z.infer<typeof RunnerToolCallSchema>;

/** The longest body of a direct tool call (a Write's content, say). */
export const MAX_TOOL_CALL_BYTES = 8 * 1024 * 1024;
