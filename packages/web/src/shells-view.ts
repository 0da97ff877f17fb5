// The session's background shells (the state's `shells`): id, command, status, how long it has run
// and its exit code, updated live (the running times each second), with Kill on running ones, during
// a run and between runs alike. A kill the server refuses has its error shown here (problem()).
import type { BackgroundShellInfo, HarnessState } from "@harness/protocol";
import { shellRuntime, shellStatusText } from "@harness/protocol/client-side";
import { h, setText } from "./dom.ts";

export type ShellsView = { update(state: HarnessState | undefined): void; problem(message: string): void; clear(): void };

export function shellsView(root: HTMLElement, kill: (shellId: string) => void): ShellsView {
  const title = h("h2", {});
  const list = h("ul", {});
  const trouble = h("p", { class: "shells-problem", role: "alert" });
  root.replaceChildren(title, trouble, list);
  let shells: readonly BackgroundShellInfo[] = [];
  let timer: ReturnType<typeof setInterval> | undefined;
  let times: [BackgroundShellInfo, HTMLElement][] = [];

  function show(): void {
    root.hidden = shells.length === 0;
    const running = shells.filter((shell) => shell.status === "running").length;
    setText(title, `Background shells: ${running} running of ${shells.length}`);
    times = [];
    list.replaceChildren(...shells.map((shell) => row(shell)));
    // Between states only the running shells' times change: those are counted on here.
    if (running > 0 && !timer) timer = setInterval(tick, 1000);
    if (running === 0 && timer) timer = void clearInterval(timer);
  }

  function tick(): void {
    for (const [shell, time] of times) if (shell.status === "running") setText(time, shellRuntime(shell));
  }

  function row(shell: BackgroundShellInfo): HTMLElement {
    const button = shell.status === "running" ? h("button", { type: "button", class: "shell-kill" }, "Kill") : undefined;
    button?.addEventListener("click", () => {
      setText(trouble, "");
      kill(shell.id);
    });
    const time = h("span", { class: "shell-time" }, shellRuntime(shell));
    times.push([shell, time]);
    return h(
      "li",
      { "data-shell-id": shell.id, "data-status": shell.status },
      h("code", { class: "shell-id" }, shell.id),
      h("span", { class: "shell-status" }, shellStatusText(shell)),
      time,
      h("code", { class: "shell-command", title: shell.command }, shell.command),
      button,
    );
  }

  return {
    update(state) {
      const next = state?.shells ?? [];
      if (next === shells) return;
      shells = next;
      show();
    },
    problem(message) {
      setText(trouble, message);
    },
    clear() {
      shells = [];
      setText(trouble, "");
      show();
    },
  };
}
