// What files a run creates or changes, whatever tool (or shell command, or sub-agent) does it: the
// workspace is compared with the run's file checkpoint. Nothing is done for a run that took no
// checkpoint (it only read). After each call that may change files (the backend said so through
// beforeChanges) a files.changed event names the files not reported before, right after the call's
// tool.completed: the run's events that come meanwhile wait behind it (the run itself does not),
// and so does the next call that may change files, so that each report is its call's. The run's end
// names every file created or changed that is still there. Comparisons run one at a time, never
// per text delta, and the lists are capped (MAX_CHANGED_FILES).
import { MAX_CHANGED_FILES, type AgentEvent, type ChangedFiles } from "@harness/protocol";
import type { Checkpoints } from "../checkpoints/checkpoints.ts";
import { inOrder } from "./in-order.ts";

export type FileChanges = {
  /** The run's checkpoint was taken: the snapshot's tree (undefined when none could be taken). */
  taken(tree: string | undefined): void;
  /** A call that may change files is about to run (`toolUseId` undefined: a hook's command): it
   * should wait for what this returns, the reports of the calls before it. */
  mayChange(toolUseId?: string): Promise<void>;
  /** Passes an event of the run on, in order, with the reports of changed files among them. */
  emit(event: AgentEvent): void;
  /** Waits for the reports under way, then lists the files the run created or changed that are
   * there now; undefined without a checkpoint (or when the comparison failed). */
  end(): Promise<ChangedFiles | undefined>;
};

/** `out`: where the run's events go, reports included. */
export function trackFileChanges(checkpoints: Pick<Checkpoints, "changedSince">, out: (event: AgentEvent) => void, max = MAX_CHANGED_FILES): FileChanges {
  let base: string | undefined;
  let last: string | undefined;
  const calls = new Set<string>();
  const reported = new Set<string>();
  let full = false;
  // Reports, and the events after them, in their turn.
  const order = inOrder();

  /** The files changed since `last` (since the checkpoint, should that snapshot be gone). */
  async function sinceLast() {
    const changed = await checkpoints.changedSince(last!, max).catch((error: unknown) => ({ ok: false as const, message: String(error) }));
    if (changed.ok || last === base) return changed;
    last = base;
    return sinceLast();
  }

  /** `call`: the call that ended (a sub-agent's carries its agent's fields, which the report keeps). */
  async function report(call: Extract<AgentEvent, { type: "tool.completed" }>): Promise<void> {
    if (last === undefined || full) return;
    const changed = await sinceLast();
    if (!changed.ok) return;
    last = changed.value.tree;
    const fresh = changed.value.paths.filter((path) => !reported.has(path));
    const room = max - reported.size;
    const paths = fresh.slice(0, room);
    for (const path of paths) reported.add(path);
    const truncated = changed.value.truncated || fresh.length > room;
    // Once the cap is reached the run's end still lists what is there (capped too).
    if (truncated) full = true;
    if (paths.length > 0 || truncated) out({ type: "files.changed", ...agentOf(call), toolUseId: call.toolUseId, paths, ...(truncated && { truncated: true as const }) });
  }

  return {
    taken(tree) {
      base ??= tree;
      last ??= tree;
    },
    async mayChange(toolUseId) {
      if (toolUseId !== undefined) calls.add(toolUseId);
      await order.pending();
    },
    emit(event) {
      if (order.pending()) order.later(() => out(event));
      else out(event);
      if (event.type === "tool.completed" && calls.delete(event.toolUseId) && last !== undefined) order.later(() => report(event));
    },
    async end() {
      for (let waiting = order.pending(); waiting; waiting = order.pending()) await waiting;
      if (base === undefined) return undefined;
      const changed = await checkpoints.changedSince(base, max).catch(() => undefined);
      if (!changed?.ok) return undefined;
      return { paths: changed.value.paths, ...(changed.value.truncated && { truncated: true as const }) };
    },
  };
}

function agentOf(call: { agentId?: string; parentToolUseId?: string }) {
  return { ...(call.agentId !== undefined && { agentId: call.agentId }), ...(call.parentToolUseId !== undefined && { parentToolUseId: call.parentToolUseId }) };
}
