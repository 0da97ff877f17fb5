// Configuration changes that arrive while a run is in flight. They queue up as they come and are
// applied together just before the next model call, so a turn never sees half of a change.
import type { RunConfigureChange } from "../types.ts";
import type { PermissionMode } from "../permissions/types.ts";
import { modelRefusal } from "./model/available-models.ts";
import { providerFor } from "./model/model.ts";
import { BYPASS_DISABLED } from "../settings/context.ts";
import type { RunContext } from "./run-context.ts";
import type { RunState } from "./run-state.ts";

export type ConfigureInbox = { apply(ctx: RunContext, state: RunState): void; close(): void };

export function watchConfigure(subscribe: ((listener: (change: RunConfigureChange) => void) => () => void) | undefined): ConfigureInbox {
  const pending: RunConfigureChange[] = [];
  const unsubscribe = subscribe?.((change) => pending.push(change)) ?? (() => {});
  return {
    apply(ctx, state) {
      for (const change of pending.splice(0)) applyChange(ctx, state, change);
    },
    close: unsubscribe,
  };
}

function applyChange(ctx: RunContext, state: RunState, change: RunConfigureChange): void {
  if (change.permissionMode !== undefined) {
    // The tool gate holds this same object, so calls checked from now on see the new mode.
    if (change.permissionMode === "bypassPermissions" && ctx.permissions.bypassDisabled) {
      ctx.notice("warning", BYPASS_DISABLED);
      refuseMode(state, ctx.permissions.mode, "bypassPermissions");
    } else if (change.permissionMode !== ctx.permissions.mode) {
      ctx.permissions.mode = change.permissionMode;
      // Said, as leaving plan mode is: a mode sent while the run's plan waited for approval (its
      // answer "approve and auto-accept edits") arrives after the run left plan mode for the default
      // mode, and the session's next runs are to start in the mode the run ends in. (dontAsk comes
      // only from a stream-json caller, which has no session to tell.)
      if (change.permissionMode !== "dontAsk") state.emit({ type: "mode.changed", permissionMode: change.permissionMode });
    }
  }
  if (change.maxTurns !== undefined) ctx.maxTurns = change.maxTurns;
  // Empty means the default, as it does for a run's options (and for the session's next run).
  if (change.systemPrompt !== undefined) ctx.systemPrompt = change.systemPrompt || ctx.setup.basePrompt;
  if (change.effort !== undefined) ctx.options = { ...ctx.options, effort: change.effort };
  if (change.model !== undefined && change.model !== ctx.model) {
    const allowed = ctx.setup.availableModels;
    const refused = allowed && modelRefusal(change.model, allowed, ctx.options.env ?? process.env);
    if (refused) {
      ctx.notice("error", `The model was not changed: ${refused}`);
      return;
    }
    // A run given its provider keeps it (only the model name changes); otherwise it is routed anew.
    const routed = providerFor(ctx.options, change.model);
    if (!routed.ok) {
      ctx.notice("error", `The model was not changed to ${change.model}: ${routed.error}`);
      return;
    }
    ctx.model = routed.model;
    ctx.provider = routed.provider;
    state.model = routed.model;
    ctx.notice("info", `Model changed to ${routed.model} from the next model call.`);
  }
}

/** Says that the run did not take the mode `wanted` and goes on in `mode`, so that the session's
 * configuration says the mode the run is really in (dontAsk, which only a stream-json caller sets,
 * has no session to tell). */
export function refuseMode(state: RunState, mode: PermissionMode, wanted: "bypassPermissions"): void {
  if (mode !== "dontAsk") state.emit({ type: "mode.changed", permissionMode: mode, refused: wanted });
}
