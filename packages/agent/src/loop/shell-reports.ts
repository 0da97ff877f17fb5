// A run tells its session of the conversation's background shells (shells.changed), and takes the
// user's kills of them, while it goes on: the shells live in the runner between runs (where the
// session watches them itself: conversation-shells.ts), so each run brings the session's copy up to
// date as it starts and keeps it so while it lasts. Clients (the chat's /tasks, a web UI, the SDK) then read the state's `shells`
// at any time, mid-run included, without a round trip to the runner.
import type { AgentEvent, KillShellAnswer } from "@harness/protocol";
import { killShellById } from "../harness/reports/shells.ts";
import { shellList, watchShells } from "../tools/shell/shells-watch.ts";
import type { ToolState } from "../tools/state.ts";

export function reportShells(
  state: ToolState,
  emit: (event: AgentEvent) => void,
  onKillShell?: (listener: (shellId: string) => KillShellAnswer) => () => void,
): { close(): void } {
  let closed = false;
  const send = () => {
    if (!closed) emit({ type: "shells.changed", shells: shellList(state.shells) });
  };
  if (state.shells.size > 0) send();
  const unwatch = watchShells(state.shells, send);
  const unsubscribe = onKillShell?.((shellId) => killShellById(state, shellId));
  return {
    close() {
      closed = true;
      unwatch();
      unsubscribe?.();
    },
  };
}
