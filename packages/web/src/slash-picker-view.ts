// The slash-command picker: "/" at the start of the prompt box lists the session's commands (the
// state's available.slashCommands, with their argument hints), narrowed as the name is typed;
// ArrowUp/ArrowDown move, Enter or Tab (or a click) put "/name " in the box for the arguments, Esc
// closes it. It is open only while the box holds "/" and a name being typed, nothing after it.
import type { RunAvailable } from "@harness/protocol";
import { h } from "./dom.ts";

export type SlashPicker = {
  /** The prompt box's keydown, first: true when the picker took the key (it is then handled). */
  key(event: KeyboardEvent): boolean;
  /** The commands the session has may have changed (a run started with others). */
  refresh(): void;
  close(): void;
};

/** The commands whose name holds `typed`: those starting with it first, each group sorted. */
export function matchingCommands(names: readonly string[], typed: string): string[] {
  const wanted = typed.toLowerCase();
  const sorted = [...new Set(names)].sort((a, b) => a.localeCompare(b));
  const starting = sorted.filter((name) => name.toLowerCase().startsWith(wanted));
  const holding = sorted.filter((name) => !name.toLowerCase().startsWith(wanted) && name.toLowerCase().includes(wanted));
  return [...starting, ...holding];
}

export function slashPicker(prompt: HTMLTextAreaElement, list: HTMLElement, available: () => RunAvailable | undefined): SlashPicker {
  let shown: string[] = [];
  let selected = 0;
  /** Esc closed the picker on this text: it stays closed until the text changes. */
  let dismissed: string | undefined;
  /** What the list was made from: a new state with the same commands leaves it alone. */
  let madeFrom: RunAvailable | undefined;

  /** The name being typed, when the box holds "/" and a name only (the caret at its end). */
  function typed(): string | undefined {
    const match = /^\/([^\s/]*)$/.exec(prompt.value);
    if (!match || prompt.selectionStart !== prompt.value.length) return undefined;
    return match[1];
  }

  function render(): void {
    const name = typed();
    if (name === undefined || dismissed === prompt.value) return hide();
    const commands = available();
    madeFrom = commands;
    if (!commands) {
      shown = [];
      list.replaceChildren(h("li", { class: "slash-note" }, "The session's commands are listed here once it has run a prompt."));
      return open();
    }
    shown = matchingCommands(commands.slashCommands, name);
    if (shown.length === 0) return hide();
    selected = Math.min(selected, shown.length - 1);
    list.replaceChildren(
      ...shown.map((command, i) => {
        const hint = commands.argumentHints?.[command];
        const item = h("li", { id: `slash-option-${i}`, role: "option", class: "slash-option", "data-name": command, "aria-selected": i === selected ? "true" : "false" }, h("span", { class: "slash-name" }, `/${command}`), hint ? h("span", { class: "slash-hint" }, hint) : null);
        // The prompt box keeps the focus (and so the keyboard) through a click on a command.
        item.addEventListener("mousedown", (event) => event.preventDefault());
        item.addEventListener("click", () => choose(i));
        return item;
      }),
    );
    open();
  }

  function open(): void {
    list.hidden = false;
    prompt.setAttribute("aria-expanded", "true");
    if (shown.length > 0) {
      prompt.setAttribute("aria-activedescendant", `slash-option-${selected}`);
      list.children[selected]?.scrollIntoView({ block: "nearest" });
    } else prompt.removeAttribute("aria-activedescendant");
  }

  function hide(): void {
    shown = [];
    selected = 0;
    list.hidden = true;
    list.replaceChildren();
    prompt.setAttribute("aria-expanded", "false");
    prompt.removeAttribute("aria-activedescendant");
  }

  function choose(i: number): void {
    const name = shown[i];
    if (name === undefined) return;
    prompt.value = `/${name} `;
    prompt.setSelectionRange(prompt.value.length, prompt.value.length);
    prompt.focus();
    hide();
  }

  function move(by: number): void {
    selected = (selected + by + shown.length) % shown.length;
    for (const [i, item] of [...list.children].entries()) item.setAttribute("aria-selected", i === selected ? "true" : "false");
    open();
  }

  prompt.setAttribute("aria-controls", list.id);
  prompt.setAttribute("aria-autocomplete", "list");
  prompt.setAttribute("aria-expanded", "false");
  prompt.addEventListener("input", () => {
    selected = 0;
    if (dismissed !== prompt.value) dismissed = undefined;
    render();
  });
  prompt.addEventListener("blur", hide);

  return {
    key(event) {
      if (list.hidden || event.isComposing) return false;
      if (event.key === "Escape") {
        dismissed = prompt.value;
        hide();
      } else if (shown.length === 0) return false;
      else if (event.key === "ArrowDown" || event.key === "ArrowUp") move(event.key === "ArrowDown" ? 1 : -1);
      else if ((event.key === "Enter" && !event.shiftKey) || (event.key === "Tab" && !event.shiftKey)) choose(selected);
      else return false;
      event.preventDefault();
      event.stopPropagation();
      return true;
    },
    refresh() {
      if (!list.hidden && available() !== madeFrom) render();
    },
    close() {
      dismissed = undefined;
      hide();
    },
  };
}
