// What the web UI's tests share: a real `harness serve` with the fake model behind it, pages of
// headless Chromium on it, and what a user does there (types a prompt, presses a key, clicks).
import { after, afterEach, before } from "node:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startChromium, startFakeAnthropic, startHarnessServer, waitFor, type Chromium, type ChromiumPage, type FakeAnthropicOptions } from "@harness/test-utils";

export const USER = "webtester";

/** Registers the hooks (one Chromium for the file, everything else stopped after each test) and
 * answers the helpers; call it inside the file's describe(). */
export function webUiTesting() {
  let chromium: Chromium;
  const cleanups: (() => Promise<unknown>)[] = [];
  before(async () => (chromium = await startChromium()));
  after(async () => chromium?.close());
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** A real server with the fake model behind it, on a data dir of its own; stopped after the test. */
  async function harness(fakeOptions: FakeAnthropicOptions, env: Record<string, string> = {}) {
    const dataDir = await mkdtemp(join(tmpdir(), "harness-web-ui-"));
    const fake = await startFakeAnthropic(fakeOptions);
    const server = await startHarnessServer({ dataDir, env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HARNESS_USER: USER, ...env } });
    cleanups.push(async () => {
      await server.stop();
      await fake.close();
      await rm(dataDir, { recursive: true, force: true });
    });
    return { dataDir, fake, server };
  }

  async function openUi(url: string): Promise<ChromiumPage> {
    const page = await chromium.newPage();
    cleanups.push(() => page.close());
    // What the policy blocks is no console message: the page's violations are kept for the tests.
    await page.send("Page.addScriptToEvaluateOnNewDocument", {
      source: `window.violations = []; document.addEventListener("securitypolicyviolation", (e) => window.violations.push(e.violatedDirective + " " + e.blockedURI));`,
    });
    await page.navigate(url);
    return page;
  }

  /** Waits until `expression` is truthy in the page; fails naming `what`, with the page's console. */
  async function until(page: ChromiumPage, expression: string, what: string, timeoutMs = 20_000): Promise<void> {
    try {
      // A page that is reloading has no such elements for a moment: not yet, rather than a failure.
      await waitFor(async () => Boolean(await page.evaluate(expression).catch(() => false)), what, { timeoutMs });
    } catch (error) {
      const shown = await page.evaluate<string>("document.body.innerText").catch(() => "");
      throw new Error(`${(error as Error).message}\npage text:\n${shown}\nconsole:\n${page.console().join("\n")}`);
    }
  }

  const text = (page: ChromiumPage, selector: string) => page.evaluate<string>(`document.querySelector(${JSON.stringify(selector)})?.textContent ?? ""`);
  const click = (page: ChromiumPage, selector: string) => page.evaluate(`document.querySelector(${JSON.stringify(selector)}).click()`);

  /** Types `prompt` into the prompt box as a user would, and presses Enter. */
  async function send(page: ChromiumPage, prompt: string): Promise<void> {
    await page.evaluate(`document.getElementById("prompt").focus()`);
    await page.send("Input.insertText", { text: prompt });
    await key(page, "Enter", 13);
  }

  async function key(page: ChromiumPage, name: string, code: number): Promise<void> {
    for (const type of ["keyDown", "keyUp"]) await page.send("Input.dispatchKeyEvent", { type, key: name, code: name, windowsVirtualKeyCode: code });
  }

  /** Starts a new session from the sidebar; its id once the page follows it (another session may
   * be open before: the one marked then differs, and the conversation is empty). */
  async function newSession(page: ChromiumPage): Promise<string> {
    await until(page, `!document.getElementById("app").hidden && document.getElementById("new-session")`, "the app to show");
    const marked = `document.querySelector('button.session[aria-current="true"]')?.dataset.sessionId`;
    const before = await page.evaluate<string | null>(`${marked} ?? null`);
    await click(page, "#new-session");
    await until(
      page,
      `!document.getElementById("composer").hidden && document.getElementById("status").dataset.status === "idle" && ${marked} !== undefined && ${marked} !== ${JSON.stringify(before)} && !document.querySelector("#conversation .message")`,
      "the new session to open, marked in the list",
    );
    return page.evaluate<string>(`${marked}`);
  }

  /** Sets the permission mode from its menu. */
  async function mode(page: ChromiumPage, value: string): Promise<void> {
    await page.evaluate(`(() => { const mode = document.getElementById("mode"); mode.value = ${JSON.stringify(value)}; mode.dispatchEvent(new Event("change")); })()`);
    await until(page, `document.getElementById("mode").value === ${JSON.stringify(value)}`, "the mode to stay");
  }

  /** The assistant's last message: its status and text, and its tool calls. */
  function lastReply(page: ChromiumPage) {
    return page.evaluate<{ status: string; text: string; calls: { name: string; status: string; input: string; output: string }[] }>(`(() => {
      const replies = document.querySelectorAll('#conversation .message[data-role="assistant"]');
      const m = replies[replies.length - 1];
      if (!m) return { status: "", text: "", calls: [] };
      return {
        status: m.dataset.status,
        text: [...m.querySelectorAll(".text")].map((t) => t.textContent).join(""),
        calls: [...m.querySelectorAll(".tool-call")].map((c) => ({ name: c.querySelector(".tool-name").textContent, status: c.dataset.status, input: c.querySelector(".tool-input").textContent, output: c.querySelector(".tool-output").textContent })),
      };
    })()`);
  }

  /** Until the last reply is no longer under way (complete). */
  const replied = (page: ChromiumPage, count = 1) =>
    until(page, `document.querySelectorAll('#conversation .message[data-role="assistant"]').length >= ${count} && [...document.querySelectorAll('#conversation .message[data-role="assistant"]')].pop().dataset.status === "complete"`, "the reply to complete");

  return { harness, openUi, until, text, click, send, key, newSession, mode, lastReply, replied, cleanups };
}
