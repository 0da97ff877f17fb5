// The session's workspace, read only: Files (in the header) opens a panel listing a folder (folders
// first, each file's size), Up and Refresh; a file chosen shows beside it as text (never HTML), or is
// named rather than shown when it is not text or past MAX_SHOWN_BYTES. Listed anew on each opening.
import { byId, h, setText } from "./dom.ts";
import { isTextType, sizeText, type WorkspaceEntry, type WorkspaceFiles } from "./workspace-files.ts";

/** The largest file shown. */
export const MAX_SHOWN_BYTES = 1024 * 1024;

export type FilesView = {
  /** Another session is open (`closed`: none): the panel closes and forgets its folder. */
  reset(closed: boolean): void;
};

export function filesView(files: WorkspaceFiles, session: () => string | undefined): FilesView {
  const toggle = byId<HTMLButtonElement>("files-toggle");
  const panel = byId("files");
  const pathText = byId("files-path");
  const list = byId("files-list");
  const up = panel.querySelector<HTMLButtonElement>(".files-up")!;
  const refresh = panel.querySelector<HTMLButtonElement>(".files-refresh")!;
  const problem = panel.querySelector<HTMLElement>(".files-problem")!;
  const view = byId("file-view");
  const name = byId("file-name");
  const note = byId("file-note");
  const text = byId("file-text");
  let folder = "";
  /** Each listing, and each file chosen, counts apart: an answer to an older one is dropped (a
   * file's text never shows under a file chosen since; a listing does not drop a file's text). */
  let listed = 0;
  let chosen = 0;

  async function show(path: string): Promise<void> {
    const sessionId = session();
    if (!sessionId) return;
    const ask = ++listed;
    setText(problem, "");
    try {
      const { entries, truncated } = await files.list(sessionId, path);
      if (ask !== listed) return;
      folder = path;
      setText(pathText, path === "" ? "/" : `${path}/`);
      up.disabled = path === "";
      list.replaceChildren(...entries.map(entryItem), ...(truncated ? [h("li", { class: "files-more" }, "…only the first entries are listed")] : []));
      if (entries.length === 0) list.replaceChildren(h("li", { class: "files-more" }, "an empty folder"));
    } catch (error) {
      if (ask === listed) setText(problem, `could not list ${path === "" ? "/" : `${path}/`}: ${(error as Error).message}`);
    }
  }

  function entryItem(entry: WorkspaceEntry): HTMLElement {
    const folderEntry = entry.type === "directory";
    const button = h(
      "button",
      { type: "button", class: "file-entry", "data-path": entry.path, "data-type": entry.type, title: entry.path },
      h("span", { class: "file-entry-name" }, folderEntry ? `${entry.name}/` : entry.name),
      ...(entry.size !== undefined && !folderEntry ? [" ", h("span", { class: "file-size" }, sizeText(entry.size))] : []),
    );
    button.addEventListener("click", () => (folderEntry ? void show(entry.path) : void open(entry, button)));
    return h("li", {}, button);
  }

  async function open(entry: WorkspaceEntry, button: HTMLElement): Promise<void> {
    const sessionId = session();
    if (!sessionId) return;
    const ask = ++chosen;
    for (const other of list.querySelectorAll("[aria-current]")) other.removeAttribute("aria-current");
    button.setAttribute("aria-current", "true");
    view.hidden = false;
    setText(name, entry.path);
    setText(text, "");
    setText(problem, "");
    const size = entry.size !== undefined ? sizeText(entry.size) : "size unknown";
    if (entry.size !== undefined && entry.size > MAX_SHOWN_BYTES) return setText(note, `too large to show here (${size})`);
    if (entry.mimeType !== undefined && !isTextType(entry.mimeType)) return setText(note, `not text (${entry.mimeType}, ${size}): not shown`);
    setText(note, "reading…");
    try {
      const read = await files.read(sessionId, entry.path, MAX_SHOWN_BYTES);
      if (ask !== chosen) return;
      // Past the cap now, though the listing's older size was not: as for a listed size.
      if (read.tooLarge) return setText(note, `too large to show here (over ${sizeText(MAX_SHOWN_BYTES)})`);
      if (read.text === undefined) return setText(note, `not text (${read.mimeType}): not shown`);
      // Its size as read: the listing's may be older.
      setText(note, sizeText(new TextEncoder().encode(read.text).length));
      setText(text, read.text);
    } catch (error) {
      if (ask !== chosen) return;
      setText(note, "");
      setText(problem, `could not read ${entry.path}: ${(error as Error).message}`);
    }
  }

  function close(): void {
    panel.hidden = true;
    toggle.setAttribute("aria-expanded", "false");
  }

  toggle.addEventListener("click", () => {
    if (!panel.hidden) return close();
    panel.hidden = false;
    toggle.setAttribute("aria-expanded", "true");
    void show(folder);
  });
  up.addEventListener("click", () => void show(folder.includes("/") ? folder.slice(0, folder.lastIndexOf("/")) : ""));
  refresh.addEventListener("click", () => void show(folder));

  return {
    reset(closed) {
      close();
      listed++;
      chosen++;
      folder = "";
      toggle.hidden = closed;
      list.replaceChildren();
      view.hidden = true;
      setText(problem, "");
    },
  };
}
