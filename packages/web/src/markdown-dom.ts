// A reply's Markdown as elements, made with h() (text as text nodes, never HTML). markdownView
// keeps the elements of the blocks whose source did not change, so that a streaming reply only
// rebuilds its last block (and a selection in the ones before it survives).
import { h } from "./dom.ts";
import { parseMarkdown, safeUrl, type MdElement, type MdNode } from "./markdown.ts";

export type MarkdownView = { element: HTMLElement; render(text: string): void };

export function markdownView(element: HTMLElement): MarkdownView {
  let shown: { source: string; element: Element }[] = [];
  let shownText: string | undefined;
  return {
    element,
    render(text) {
      if (text === shownText) return;
      shownText = text;
      const next = parseMarkdown(text).map((block, i) => (shown[i]?.source === block.source ? shown[i] : { source: block.source, element: toElement(block.node) }));
      const changed = next.length !== shown.length || next.some((block, i) => block !== shown[i]);
      shown = next;
      if (changed) element.replaceChildren(...next.map((b) => b.element));
    },
  };
}

function toNodes(nodes: MdNode[]): Node[] {
  return nodes.map((node) => (typeof node === "string" ? document.createTextNode(node) : toElement(node)));
}

function toElement(node: MdElement): Element {
  switch (node.tag) {
    case "pre":
      return codeBlock(node);
    case "a":
      // The parser makes links to http(s) only; checked again where the attribute is set.
      if (!node.href || !safeUrl(node.href)) return h("span", {}, ...toNodes(node.children));
      return h("a", { href: node.href, rel: "noopener noreferrer", target: "_blank" }, ...toNodes(node.children));
    case "ol":
      return h("ol", { start: node.start }, ...toNodes(node.children));
    default:
      return h(node.tag, {}, ...toNodes(node.children));
  }
}

/** A fenced block: its language, a Copy button (its label from the style sheet, so that it is not
 * part of the text copied with the page's selection) and the code, scrolling sideways. */
function codeBlock(node: MdElement): Element {
  const code = typeof node.children[0] === "string" ? node.children[0] : "";
  const copy = h("button", { type: "button", class: "copy", "aria-label": "Copy", title: "Copy the code" });
  copy.addEventListener("click", () => {
    void copyText(code).then((ok) => {
      copy.dataset.copied = ok ? "yes" : "no";
      setTimeout(() => delete copy.dataset.copied, 1500);
    });
  });
  return h("div", { class: "code-block", "data-lang": node.lang }, h("div", { class: "code-head" }, h("span", { class: "code-lang" }, node.lang ?? ""), copy), h("pre", {}, h("code", {}, code)));
}

/** Puts `text` on the clipboard: the Clipboard API where the page may use it (https, localhost),
 * else through a selected, off-screen text box. */
async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const box = h("textarea", { class: "copy-buffer", readonly: true });
    box.value = text;
    document.body.append(box);
    box.select();
    const ok = document.execCommand("copy");
    box.remove();
    return ok;
  }
}
