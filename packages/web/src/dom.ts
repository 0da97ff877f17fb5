// Building elements with text only: everything shown comes from the model, tools or the server, so
// it goes in as text nodes, never as HTML. Attributes named on… (event handlers) are refused.

export type Child = Node | string | number | false | null | undefined;
type Attributes = Record<string, string | number | boolean | undefined>;

/** An element with `attributes` (true: present and empty; false or undefined: absent) and
 * `children` (strings become text nodes). */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (/^on/i.test(name)) throw new Error(`h(): event handler attribute ${name} refused: use addEventListener`);
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? "" : String(value));
  }
  element.append(...nodes(children));
  return element;
}

function nodes(children: Child[]): Node[] {
  const out: Node[] = [];
  for (const child of children) {
    if (child === false || child === null || child === undefined) continue;
    out.push(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
  }
  return out;
}

/** Sets `element`'s text when it differs (a streamed reply changes one element's text many times a
 * second; unchanged ones are left alone so that a selection in them survives). */
export function setText(element: Element, text: string): void {
  if (element.textContent !== text) element.textContent = text;
}

/** The element with id `id`, which the page must hold. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
}
