// The seam between the runner's HTTP surface and whatever agent actually does the work.
import type { AgentEvent, RunnerQuery, TranscriptMessage, Usage } from "@harness/protocol";

export type BackendContext = {
  /** Fires when the run must stop: the client closed the request or the runner is shutting down. */
  signal: AbortSignal;
  /** Streams an event to the client. Must not be called after run() settles. */
  emit: (event: AgentEvent) => void;
  /** The runner's workspace directory; the default working directory of a run. */
  workspace: string;
};

/** How a run ended. A backend reports failures here instead of throwing; a throw is still caught
 * and reported as a failure with the thrown message. */
export type RunOutcome =
  | { ok: true; result: string; usage: Usage; transcript: TranscriptMessage[] }
  | { ok: false; message: string; transcript?: TranscriptMessage[] };

export type Backend = {
  name: string;
  run(query: RunnerQuery, ctx: BackendContext): Promise<RunOutcome>;
};
