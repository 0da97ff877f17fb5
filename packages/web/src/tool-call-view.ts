// One tool call in the conversation: its name, what it does, its status, approve/deny while it
// waits for approval, Background while a Bash call runs (then "in the background" once it was
// moved there), the lines an edit removes and adds, and its output (collapsed when long, cut at
// MAX_OUTPUT_CHARS).
import type { HarnessToolCall } from "@harness/protocol";
import { h, setText } from "./dom.ts";
import { editDiffView } from "./edit-diff-view.ts";
import { backgroundShell, clip, inputSummary, isLong, lineCount, MAX_OUTPUT_CHARS } from "./format.ts";

export type CallActions = { approve(toolCallId: string): void; deny(toolCallId: string): void; background(toolCallId: string): void };

export type ToolCallView = { element: HTMLElement; update(call: HarnessToolCall, reason: string | undefined): void };

export function toolCallView(actions: CallActions): ToolCallView {
  const name = h("span", { class: "tool-name" });
  const input = h("span", { class: "tool-input" });
  const status = h("span", { class: "tool-status" });
  const background = h("button", { class: "background", type: "button", hidden: true, title: "Let the command go on as a background shell, and the run go on" }, "Background");
  const approve = h("button", { class: "approve", type: "button" }, "Approve");
  const deny = h("button", { class: "deny", type: "button" }, "Deny");
  const reason = h("span", { class: "approval-reason" });
  const approval = h("div", { class: "approval", hidden: true }, approve, deny, reason);
  const diff = editDiffView();
  const output = h("div", { class: "tool-output", hidden: true });
  const element = h("div", { class: "tool-call" }, h("div", { class: "tool-head" }, name, input, status, background), diff.element, approval, output);
  let id = "";
  let shownOutput: string | undefined;
  /** What the view shows: the state shares a call that did not change, so the same object. */
  let shown: { call: HarnessToolCall; why: string | undefined } | undefined;
  approve.addEventListener("click", () => answer(() => actions.approve(id)));
  deny.addEventListener("click", () => answer(() => actions.deny(id)));
  // Sent once: the button stays disabled until the call has ended.
  background.addEventListener("click", () => {
    background.disabled = true;
    actions.background(id);
  });
  // Answered once: the buttons stay disabled until the state says the call goes on.
  function answer(send: () => void): void {
    approve.disabled = deny.disabled = true;
    send();
  }

  return {
    element,
    update(call, why) {
      // A reply's text streams into the message that holds its calls: each delta updates the
      // message, and its calls that did not change are left as they are.
      if (shown?.call === call && shown.why === why) return;
      shown = { call, why };
      id = call.id;
      element.dataset.status = call.status;
      element.dataset.name = call.name;
      element.classList.toggle("sub-agent", call.parentToolCallId !== undefined);
      setText(name, call.name);
      setText(input, inputSummary(call));
      input.title = inputSummary(call, 2000);
      const shell = call.name === "Bash" ? backgroundShell(call.output) : undefined;
      if (shell === undefined) delete element.dataset.background;
      else element.dataset.background = shell;
      setText(status, shell === undefined ? call.status : `in the background · shell ${shell}`);
      const runningBash = call.name === "Bash" && call.status === "running";
      if (runningBash && background.hidden) background.disabled = false;
      background.hidden = !runningBash;
      const waiting = call.status === "awaiting-approval";
      if (waiting && approval.hidden) approve.disabled = deny.disabled = false;
      approval.hidden = !waiting;
      // The question's description is most often what the input line says already.
      diff.update(call);
      setText(reason, why === undefined || why === inputSummary(call) ? "" : why);
      if (call.output !== shownOutput) {
        shownOutput = call.output;
        renderOutput(output, call.output ?? "");
      }
    },
  };
}

/** The output as text: open when short; when long, in a closed <details> (its open state kept while
 * the output grows), cut at MAX_OUTPUT_CHARS with the rest counted. */
function renderOutput(box: HTMLElement, text: string): void {
  box.hidden = text === "";
  if (text === "") return box.replaceChildren();
  const { text: shown, cut } = clip(text, MAX_OUTPUT_CHARS);
  const pre = h("pre", {}, shown, cut > 0 ? h("span", { class: "cut" }, `\n… ${cut} more characters not shown`) : undefined);
  if (!isLong(text)) return box.replaceChildren(pre);
  const open = box.querySelector("details")?.open ?? false;
  const lines = lineCount(text);
  box.replaceChildren(h("details", { open }, h("summary", {}, `output: ${lines} line${lines === 1 ? "" : "s"}, ${text.length} characters`), pre));
}
