// The web UI's Fork, in headless Chromium against a real `harness serve` with the fake model: from
// one of the user's prompts (the fork holds what came before it, the prompt waiting in the box) or
// from the end of the conversation (all of it); the fork opens and is listed with its title, its
// files as they were at the fork point; when the server refuses, the page says what it said.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createSessionsApi } from "@harness/client";
import { USER, webUiTesting } from "./web-ui-support.ts";

const marked = `document.querySelector('button.session[aria-current="true"]')?.dataset.sessionId`;
const rows = `[...document.querySelectorAll("#sessions button.session")].map((b) => b.dataset.sessionId + " " + b.querySelector(".session-title").textContent)`;
const messages = `[...document.querySelectorAll("#conversation .message")].map((m) => m.dataset.role + ": " + m.querySelector(".text")?.textContent)`;

describe("the web UI's Fork", () => {
  const { harness, openUi, until, click, send, key, newSession, mode, replied } = webUiTesting();

  test("Fork on a prompt opens a fork of what came before it with the prompt in the box; Fork session copies all of it", async () => {
    const { server, dataDir, fake } = await harness({
      replies: [
        { toolUses: [{ name: "Write", input: { file_path: "a.txt", content: "one\n" } }] },
        { text: "wrote one" },
        { toolUses: [{ name: "Write", input: { file_path: "a.txt", content: "two\n" } }] },
        { text: "wrote two" },
        { text: "answered in the fork" },
      ],
    });
    const page = await openUi(`${server.url}/`);
    const source = await newSession(page);
    await mode(page, "acceptEdits");
    await send(page, "first");
    await replied(page, 1);
    await send(page, "second, in\ntwo lines");
    await replied(page, 2);
    await until(page, `${rows}.some((r) => r.startsWith(${JSON.stringify(source)} + " first"))`, "the source listed by its first prompt");

    // From the second prompt: the fork holds the first exchange, and the prompt waits in the box.
    await page.evaluate(`document.querySelectorAll('.message[data-role="user"]')[1].querySelector("button.fork").click()`);
    await until(page, `${marked} && ${marked} !== ${JSON.stringify(source)} && document.querySelectorAll("#conversation .message").length === 2`, "the fork to open");
    const forked = await page.evaluate<string>(marked);
    assert.deepEqual(await page.evaluate(messages), ["user: first", "assistant: wrote one"]);
    assert.equal(await page.evaluate(`document.getElementById("prompt").value`), "second, in\ntwo lines");
    assert.equal(await page.evaluate(`document.activeElement.id`), "prompt");
    assert.equal(await page.evaluate(`location.hash`), `#session=${forked}`);
    await until(page, `${rows}.includes(${JSON.stringify(`${forked} first (fork)`)})`, "the fork listed with its title");
    assert.equal(await page.evaluate(`document.getElementById("session-name").textContent`), "first (fork)");
    // Its files as they were before that prompt; the source's as they are.
    const file = (session: string) => readFile(join(dataDir, "workspaces", USER, session, "a.txt"), "utf8");
    assert.equal(await file(forked), "one\n");
    assert.equal(await file(source), "two\n");

    // The fork is a session of its own: its prompt goes on from there.
    await page.evaluate(`document.getElementById("prompt").focus()`);
    await key(page, "Enter", 13);
    await replied(page, 2);
    assert.match(JSON.stringify(fake.requests[4].body.messages), /second, in\\ntwo lines/);
    assert.doesNotMatch(JSON.stringify(fake.requests[4].body.messages), /wrote two/);

    // Back on the source, Fork session copies the whole conversation, nothing waiting in the box.
    await click(page, `button.session[data-session-id="${source}"]`);
    await until(page, `${marked} === ${JSON.stringify(source)} && document.querySelectorAll("#conversation .message").length === 4`, "the source to open again");
    await click(page, "#fork-session");
    await until(page, `${marked} && ![${JSON.stringify(source)}, ${JSON.stringify(forked)}].includes(${marked}) && document.querySelectorAll("#conversation .message").length === 4`, "the whole fork to open");
    assert.equal(await page.evaluate(`document.getElementById("prompt").value`), "");
    await until(page, `${rows}.length === 3`, "three sessions listed");
    assert.equal(await page.evaluate(`document.getElementById("problem").hidden`), true);
    assert.deepEqual(page.console(), []);
    assert.deepEqual(await page.evaluate(`window.violations`), []);
  });

  test("a fork the server refuses says why, and the page stays on its session", async () => {
    const { server } = await harness({ replies: [{ text: "hello" }] });
    const page = await openUi(`${server.url}/`);
    const source = await newSession(page);
    await send(page, "first");
    await replied(page, 1);
    // Deleted from elsewhere meanwhile: the server has no such session to fork.
    await createSessionsApi({ url: server.url, userId: USER }).remove(source);
    await page.evaluate(`document.querySelector('.message[data-role="user"] button.fork').click()`);
    await until(page, `!document.getElementById("problem").hidden`, "the refusal shown");
    const said = await page.evaluate<string>(`document.getElementById("problem").textContent`);
    assert.match(said, /^the session was not forked: POST \/sessions\/[^ ]+\/fork answered 404: /);
    assert.match(said, new RegExp(source));
    assert.equal(await page.evaluate(`location.hash`), `#session=${source}`);
  });
});
