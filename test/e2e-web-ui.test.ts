// The web UI in headless Chromium against a real `harness serve` with the fake model: the page and
// its security headers, a new session and a prompt whose reply streams text and runs Bash, an
// approval answered with a click, a run cancelled with Esc, model text that looks like HTML shown
// as text, a server with a token, and HARNESS_WEB_UI=0.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHarnessServer, waitFor } from "@harness/test-utils";
import { USER, webUiTesting } from "./web-ui-support.ts";

describe("the web UI", () => {
  const { harness, openUi, until, text, click, send, key, newSession, lastReply, replied, cleanups } = webUiTesting();

  test("GET / serves the page under a strict policy, its script named by its hash, and harness serve prints its URL", async () => {
    const { server } = await harness({});
    // The UI's line comes right after the one the server was waited for.
    const printed = new RegExp(`Harness listening on ${server.url}\\n(.* )?web UI: open ${server.url}/ in a browser\\n`);
    await waitFor(() => printed.test(server.output()), "harness serve to print the UI's URL");
    const page = await fetch(`${server.url}/`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
    const policy = page.headers.get("content-security-policy") ?? "";
    assert.match(policy, /default-src 'none'/);
    assert.match(policy, /script-src 'self'(;|$)/);
    assert.match(policy, /connect-src 'self' ws:\/\/127\.0\.0\.1:\d+ wss:\/\/127\.0\.0\.1:\d+(;|$)/);
    assert.match(policy, /frame-ancestors 'none'/);
    assert.equal(page.headers.get("x-content-type-options"), "nosniff");
    assert.equal(page.headers.get("cache-control"), "no-cache");
    const html = await page.text();
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, "no inline script");
    const script = /src="(\/ui\/app-[0-9a-f]{16}\.js)"/.exec(html)?.[1];
    assert.ok(script, html);
    const js = await fetch(`${server.url}${script}`);
    assert.equal(js.status, 200);
    assert.match(js.headers.get("content-type") ?? "", /^text\/javascript/);
    assert.equal(js.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.equal(js.headers.get("x-content-type-options"), "nosniff");
    assert.equal((await fetch(`${server.url}/ui/app-0000000000000000.js`)).status, 404);
    // The routes it answers beside the page's are as they were.
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    assert.equal((await fetch(`${server.url}/sessions?userId=${USER}`)).status, 200);

    const ui = await openUi(`${server.url}/`);
    await until(ui, `!document.getElementById("app").hidden`, "the app to show");
    assert.equal(await text(ui, "#user"), USER, "a server without a token offers its user");
    // No session yet: the page says how to start one, and offers nothing that needs one.
    await until(ui, `document.getElementById("session-name").textContent !== ""`, "the page to say what to do");
    assert.equal(await text(ui, "#session-name"), "no session open: start one with + New session, or open one from the list");
    assert.deepEqual(await ui.evaluate(`["composer", "mode-row"].map((id) => document.getElementById(id).hidden)`), [true, true]);
    assert.deepEqual(ui.console(), []);
    assert.deepEqual(await ui.evaluate("window.violations"), []);

    // "switch" asks for the user id again, offering the one in use.
    await click(ui, "#sign-out");
    await until(ui, `!document.getElementById("sign-in").hidden`, "the form");
    assert.equal(await ui.evaluate(`document.getElementById("sign-in-token-row").hidden`), true, "no token asked of a server without one");
    assert.equal(await ui.evaluate(`document.getElementById("sign-in-user").value`), USER);
    await ui.evaluate(`(() => { document.getElementById("sign-in-user").value = "bad id"; document.getElementById("sign-in-submit").click(); })()`);
    await until(ui, `/user id must be/.test(document.getElementById("sign-in-problem").textContent)`, "a bad id refused");
    await ui.evaluate(`(() => { document.getElementById("sign-in-user").value = "someone-else"; document.getElementById("sign-in-submit").click(); })()`);
    await until(ui, `!document.getElementById("app").hidden && document.getElementById("user").textContent === "someone-else"`, "the other user");
    await until(ui, `document.querySelector("#sessions .empty")`, "their empty list");
  });

  test("a new session, a prompt whose reply streams text and runs Bash: the text and the call's output show", async () => {
    const { server, fake } = await harness({
      replies: [{ text: ["Let me ", "check."], toolUses: [{ name: "Bash", input: { command: "echo from-bash-$((6*7))", description: "say it" } }] }, { text: ["The answer ", "is 42."] }],
    });
    const page = await openUi(`${server.url}/`);
    const sessionId = await newSession(page);
    // Not asked anything yet, it is a new session (its id in its tooltip), not a row of hex.
    await until(page, `document.getElementById("session-name").textContent === "new session"`, "the new session named so");
    assert.equal(await page.evaluate(`document.getElementById("session-name").title`), sessionId);
    assert.deepEqual(await page.evaluate(`(() => { const row = document.querySelector('button.session[data-session-id="${sessionId}"]'); return [row.querySelector(".session-title").textContent, row.title]; })()`), ["new session", sessionId]);
    await page.evaluate(`(() => { const mode = document.getElementById("mode"); mode.value = "fullAuto"; mode.dispatchEvent(new Event("change")); })()`);
    await until(page, `document.getElementById("mode").value === "fullAuto"`, "the mode to stay");
    await send(page, "what is six times seven?");
    await until(page, `document.querySelector('#conversation .message[data-role="user"] .text')?.textContent === "what is six times seven?"`, "the prompt in the conversation");
    await until(page, `document.querySelector('#conversation .message[data-role="assistant"]')?.dataset.status === "complete"`, "the reply to complete");
    const reply = await lastReply(page);
    assert.equal(reply.text, "Let me check.The answer is 42.", "the text before the call, then after it");
    assert.deepEqual(reply.calls, [{ name: "Bash", status: "complete", input: "echo from-bash-$((6*7))", output: "from-bash-42" }]);
    assert.equal(fake.requests.length, 2);
    assert.equal(await page.evaluate(`document.getElementById("prompt").value`), "", "the box is empty after sending");
    await until(page, `document.getElementById("status").textContent.startsWith("idle")`, "the status line to say idle");
    // The session is in the list with its messages, and reopens from the address.
    await until(page, `document.querySelector('button.session[data-session-id="${sessionId}"] .session-meta')?.textContent.includes("2 messages")`, "the list to count the messages");
    assert.equal(await page.evaluate(`document.querySelector('button.session[data-session-id="${sessionId}"] .session-title').textContent`), "what is six times seven?", "titled after its first prompt");
    const again = await openUi(`${server.url}/#session=${sessionId}`);
    await until(again, `document.querySelector('#conversation .message[data-role="assistant"] .tool-output')`, "the conversation reopened");
    assert.deepEqual(await lastReply(again), reply);
    assert.deepEqual(page.console(), []);
  });

  test("from the keyboard: a question for approval takes the focus from the empty prompt box, Enter approves, and the box has it back", async () => {
    const { server, dataDir } = await harness({
      replies: [{ toolUses: [{ name: "Write", input: { file_path: "a.txt", content: "a\n" } }] }, { toolUses: [{ name: "Write", input: { file_path: "b.txt", content: "b\n" } }] }, { text: "both" }],
    });
    const page = await openUi(`${server.url}/`);
    const sessionId = await newSession(page);
    await send(page, "write a");
    await until(page, `document.activeElement?.classList.contains("approve")`, "Approve to have the focus");
    await page.send("Input.dispatchKeyEvent", { type: "keyDown", key: "Enter", code: "Enter", windowsVirtualKeyCode: 13, text: "\r" });
    await page.send("Input.dispatchKeyEvent", { type: "keyUp", key: "Enter", code: "Enter", windowsVirtualKeyCode: 13 });
    // The next question takes the focus too; the user may go back to the box to type, and keeps it.
    await until(page, `document.querySelectorAll('.tool-call[data-status="awaiting-approval"]').length === 1 && document.querySelectorAll('.tool-call[data-status="complete"]').length === 1`, "the second question");
    assert.ok(existsSync(join(dataDir, "workspaces", USER, sessionId, "a.txt")));
    await until(page, `document.activeElement?.classList.contains("approve")`, "Approve of the second call to have the focus");
    await page.evaluate(`document.getElementById("prompt").focus()`);
    await page.send("Input.insertText", { text: "half typed" });
    await page.evaluate(`document.querySelector('.tool-call[data-status="awaiting-approval"] .approve').click()`);
    await replied(page);
    assert.equal(await page.evaluate(`document.activeElement.id`), "prompt");
    assert.equal(await page.evaluate(`document.getElementById("prompt").value`), "half typed");
  });

  test("a Write in the default permission mode shows Approve and Deny, and approving completes the run", async () => {
    const { server, dataDir } = await harness({
      replies: [{ toolUses: [{ name: "Write", input: { file_path: "note.txt", content: "approved\n" } }] }, { text: "written" }],
    });
    const page = await openUi(`${server.url}/`);
    const sessionId = await newSession(page);
    assert.equal(await page.evaluate(`document.getElementById("mode").value`), "default");
    await send(page, "write a note");
    await until(page, `document.querySelector('.tool-call[data-status="awaiting-approval"] .approval:not([hidden]) .approve')`, "the call to wait for approval");
    assert.match(await text(page, "#status"), /^waiting for approval/);
    assert.equal(await page.evaluate(`document.querySelector(".tool-call .deny").hidden`), false);
    await click(page, ".tool-call .approve");
    await until(page, `document.querySelector('#conversation .message[data-role="assistant"]')?.dataset.status === "complete"`, "the run to complete");
    const reply = await lastReply(page);
    assert.equal(reply.text, "written");
    assert.equal(reply.calls[0].status, "complete");
    assert.equal(await page.evaluate(`document.querySelector(".tool-call .approval").hidden`), true);
    assert.equal(await readFile(join(dataDir, "workspaces", USER, sessionId, "note.txt"), "utf8"), "approved\n");
  });

  test("Esc cancels a run mid-stream; the reply says cancelled and the box takes a new prompt", async () => {
    let release!: () => void;
    const hold = new Promise<void>((resolve) => (release = resolve));
    const { server } = await harness({ replies: [{ text: ["streaming ", "half"], hold }, { text: "next one" }] });
    cleanups.push(async () => release());
    const page = await openUi(`${server.url}/`);
    await newSession(page);
    await send(page, "go on and on");
    await until(page, `document.querySelector('#conversation .message[data-role="assistant"] .text')?.textContent === "streaming half"`, "the streamed text");
    assert.equal(await page.evaluate(`document.getElementById("cancel").disabled`), false);
    assert.equal(await text(page, "#send"), "Steer");
    await key(page, "Escape", 27);
    await until(page, `document.querySelector('#conversation .message[data-role="assistant"]')?.dataset.status === "cancelled"`, "the run to be cancelled");
    await until(page, `document.getElementById("cancel").disabled`, "Cancel to be disabled");
    await send(page, "another");
    await until(page, `[...document.querySelectorAll('#conversation .message[data-role="assistant"]')].pop()?.dataset.status === "complete"`, "the next run");
    assert.equal((await lastReply(page)).text, "next one");
  });

  test("text of the model and the user that looks like HTML shows as text, and makes no element", async () => {
    const evil = `<img src=x onerror="window.pwned=1"><script>window.pwned=2</script><b>bold</b>`;
    const { server } = await harness({ replies: [{ text: evil, toolUses: [{ name: "Bash", input: { command: `echo '<img src=y onerror=window.pwned=3>'` } }] }, { text: "done" }] });
    const page = await openUi(`${server.url}/`);
    await newSession(page);
    await page.evaluate(`(() => { const mode = document.getElementById("mode"); mode.value = "fullAuto"; mode.dispatchEvent(new Event("change")); })()`);
    await send(page, `<img src=z onerror="window.pwned=4">`);
    await until(page, `[...document.querySelectorAll('#conversation .message[data-role="assistant"]')].pop()?.dataset.status === "complete"`, "the run to complete");
    const seen = await page.evaluate<{ pwned: unknown; elements: number; user: string; reply: string; output: string }>(`({
      pwned: window.pwned ?? null,
      elements: document.querySelectorAll("#conversation img, #conversation script, #conversation b").length,
      user: document.querySelector('.message[data-role="user"] .text').textContent,
      reply: document.querySelector('.message[data-role="assistant"] .text').textContent,
      output: document.querySelector(".tool-output").textContent,
    })`);
    assert.deepEqual(seen, { pwned: null, elements: 0, user: `<img src=z onerror="window.pwned=4">`, reply: evil, output: "<img src=y onerror=window.pwned=3>" });
  });

  test("with HARNESS_TOKEN the page asks for the token, refuses a wrong one, then works; ?token= signs in without asking", async () => {
    const { server } = await harness({ replies: [{ text: "hello with a token" }] }, { HARNESS_TOKEN: "right-token" });
    assert.equal((await fetch(`${server.url}/`)).status, 200, "the page is served without the token");
    assert.equal((await fetch(`${server.url}/sessions?userId=${USER}`)).status, 401);
    const config = await (await fetch(`${server.url}/ui/config.json`)).json();
    assert.deepEqual(config, { tokenRequired: true }, "no user offered to whoever asks");

    const page = await openUi(`${server.url}/`);
    await until(page, `!document.getElementById("sign-in").hidden`, "the page to ask for the token");
    assert.equal(await page.evaluate(`document.getElementById("sign-in-token-row").hidden`), false);
    const signIn = (token: string) =>
      page.evaluate(`(() => {
        document.getElementById("sign-in-token").value = ${JSON.stringify(token)};
        document.getElementById("sign-in-user").value = ${JSON.stringify(USER)};
        document.getElementById("sign-in-submit").click();
      })()`);
    await signIn("wrong-token");
    await until(page, `/refused the token/.test(document.getElementById("sign-in-problem").textContent)`, "the wrong token refused");
    assert.equal(await page.evaluate(`document.getElementById("app").hidden`), true);
    await signIn("right-token");
    await newSession(page);
    await send(page, "hi");
    await until(page, `[...document.querySelectorAll('#conversation .message[data-role="assistant"]')].pop()?.dataset.status === "complete"`, "the run to complete");
    assert.equal((await lastReply(page)).text, "hello with a token");

    // Another tab (its own sessionStorage) signs in from its address, which then loses the token.
    const other = await openUi(`${server.url}/?token=right-token`);
    await until(other, `!document.getElementById("app").hidden && document.querySelector("button.session")`, "the app with the sessions");
    assert.equal(await other.evaluate(`document.getElementById("sign-in").hidden`), true);
    assert.equal(await other.evaluate("location.search"), "");
    assert.deepEqual(other.console(), []);
    assert.deepEqual(await other.evaluate("window.violations"), []);
  });

  test("the status line says reconnecting while the server is away, and the page goes on once it is back", async () => {
    const it = await harness({ replies: [{ text: "before" }, { text: "after" }] });
    const page = await openUi(`${it.server.url}/`);
    await newSession(page);
    await send(page, "one");
    await until(page, `document.querySelector('#conversation .message[data-role="assistant"]')?.dataset.status === "complete"`, "the first run");
    const port = it.server.port;
    await it.server.stop();
    await until(page, `document.getElementById("status").textContent.startsWith("reconnecting…")`, "the status line to say reconnecting");
    const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: it.fake.url, HARNESS_USER: USER };
    const again = await startHarnessServer({ dataDir: it.dataDir, env, port });
    cleanups.push(() => again.stop());
    await until(page, `document.getElementById("status").textContent.startsWith("idle")`, "the page to reconnect", 30_000);
    await send(page, "two");
    await until(page, `[...document.querySelectorAll('#conversation .message[data-role="assistant"]')].pop()?.dataset.status === "complete" && document.querySelectorAll(".message").length === 4`, "the second run");
    assert.equal((await lastReply(page)).text, "after");
  });

  test("HARNESS_WEB_UI=0 serves nothing of the UI, and another value is refused naming it", async () => {
    const { server } = await harness({}, { HARNESS_WEB_UI: "0" });
    for (const path of ["/", "/ui/config.json", "/ui/app.js"]) assert.equal((await fetch(`${server.url}${path}`)).status, 404, path);
    // What it prints of itself is all printed once it says where sessions work (its last line).
    await server.waitForOutput(/sessions work in/);
    assert.doesNotMatch(server.output(), /web UI/);
    const dataDir = await mkdtemp(join(tmpdir(), "harness-web-ui-"));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    await assert.rejects(startHarnessServer({ dataDir, env: { HARNESS_WEB_UI: "yes" } }), /HARNESS_WEB_UI must be 1 or 0, got "yes"/);
  });
});
