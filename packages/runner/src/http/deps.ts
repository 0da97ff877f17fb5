// What the request handlers of a runner share.
import type { BackendRegistry } from "../backends/registry.ts";
import type { Checkpoints } from "../checkpoints/checkpoints.ts";
import type { RunRegistry } from "../runs/runs.ts";
import type { TranscriptSlot } from "../runs/transcripts.ts";

export type RunnerDeps = {
  workspace: string;
  stateDir: string;
  runs: RunRegistry;
  backends: BackendRegistry;
  checkpoints: Checkpoints;
  /** The transcript the last run left, for a query's historyId. */
  transcripts: TranscriptSlot;
  /** A run is in flight or the workspace is being rewound. */
  busy(): boolean;
  /** Why the runner is busy (BUSY_MESSAGE or REWINDING_MESSAGE), if it is. */
  busyWith(): string | undefined;
  /** Something happened (a request, a run ending): the runner is not idle. */
  activity(): void;
};

export const BUSY_MESSAGE = "runner is busy with another run";
export const REWINDING_MESSAGE = "runner is busy rewinding the workspace";
