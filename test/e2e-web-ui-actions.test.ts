// What the web UI does beside the conversation, in headless Chromium against a real `harness
// serve` with the fake model: a running Bash call moved to the background, a rewind to a prompt
// (what it would restore first, refused while a run is under way), and sessions renamed and deleted.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { waitFor } from "@harness/test-utils";
import { USER, webUiTesting } from "./web-ui-support.ts";

describe("the web UI's actions", () => {
  const { harness, openUi, until, click, send, newSession, mode, lastReply, replied } = webUiTesting();

  test("Background on a running Bash call moves it to the background: the run goes on and the call says so", async () => {
    const command = "echo started; while [ ! -e go ]; do sleep 0.1; done; echo finished > done.txt";
    const { server, dataDir, fake } = await harness({ replies: [{ toolUses: [{ name: "Bash", input: { command } }] }, { text: "It runs in the background." }] });
    const page = await openUi(`${server.url}/`);
    const sessionId = await newSession(page);
    await mode(page, "fullAuto");
    await send(page, "start the watcher");
    const button = `.tool-call[data-name="Bash"][data-status="running"] button.background`;
    await until(page, `document.querySelector('${button}') && !document.querySelector('${button}').hidden && /started/.test(document.querySelector(".tool-output").textContent)`, "Background on the running call");
    await click(page, button);
    await replied(page);
    const reply = await lastReply(page);
    assert.equal(reply.text, "It runs in the background.");
    assert.equal(reply.calls[0].status, "complete");
    const shell = await page.evaluate<string>(`document.querySelector(".tool-call").dataset.background`);
    assert.match(shell, /^[0-9a-f]{6}$/);
    assert.equal(await page.evaluate(`document.querySelector(".tool-call .tool-status").textContent`), `in the background · shell ${shell}`);
    assert.equal(await page.evaluate(`document.querySelector(".tool-call button.background").hidden`), true);
    assert.equal(fake.requests.length, 2);
    // The command goes on, neither stopped nor started again.
    const workspace = join(dataDir, "workspaces", USER, sessionId);
    assert.equal(existsSync(join(workspace, "done.txt")), false);
    await writeFile(join(workspace, "go"), "");
    await waitFor(() => existsSync(join(workspace, "done.txt")), "the background command to finish");
    assert.deepEqual(page.console(), []);
  });

  test("Rewind here shows the files it would put back, rewinds on Rewind, and says why not while a run is under way", async () => {
    let release!: () => void;
    const hold = new Promise<void>((resolve) => (release = resolve));
    const { server, dataDir, fake } = await harness({
      replies: [
        { toolUses: [{ name: "Write", input: { file_path: "a.txt", content: "one\n" } }] },
        { text: "wrote one" },
        { toolUses: [{ name: "Write", input: { file_path: "a.txt", content: "two\n" } }, { name: "Write", input: { file_path: "b.txt", content: "new\n" } }] },
        { text: "wrote two" },
        { text: ["thinking it over"], hold },
        { text: "after the rewind" },
      ],
    });
    const page = await openUi(`${server.url}/`);
    const sessionId = await newSession(page);
    const file = (name: string) => join(dataDir, "workspaces", USER, sessionId, name);
    await mode(page, "acceptEdits");
    await send(page, "first");
    await replied(page, 1);
    await send(page, "second");
    await replied(page, 2);
    assert.equal(await readFile(file("a.txt"), "utf8"), "two\n");

    const second = `document.querySelectorAll('.message[data-role="user"]')[1]`;
    await page.evaluate(`${second}.querySelector("button.rewind").click()`);
    await until(page, `!${second}.querySelector(".rewind-confirm").hidden`, "the preview");
    const preview = await page.evaluate<{ note: string; files: string[] }>(`({
      note: ${second}.querySelector(".rewind-note").textContent,
      files: [...${second}.querySelectorAll(".rewind-files li")].map((li) => li.dataset.action + " " + li.querySelector("code").textContent.split("/").pop()).sort(),
    })`);
    assert.match(preview.note, /these files as they were then/);
    assert.deepEqual(preview.files, ["delete b.txt", "restore a.txt"]);
    assert.equal(await readFile(file("a.txt"), "utf8"), "two\n", "the preview changes nothing");
    // Keep closes it; asked again, Rewind rewinds.
    await page.evaluate(`${second}.querySelector(".rewind-keep").click()`);
    assert.equal(await page.evaluate(`${second}.querySelector(".rewind-panel").hidden`), true);
    await page.evaluate(`${second}.querySelector("button.rewind").click()`);
    await until(page, `!${second}.querySelector(".rewind-confirm").hidden`, "the preview again");
    await page.evaluate(`${second}.querySelector(".rewind-confirm").click()`);
    await until(page, `document.querySelectorAll("#conversation .message").length === 2`, "the conversation rewound");
    assert.equal(await readFile(file("a.txt"), "utf8"), "one\n");
    assert.equal(existsSync(file("b.txt")), false);

    // While a run is under way: refused, saying why, and nothing sent.
    await send(page, "third");
    await until(page, `document.querySelector('.message[data-role="assistant"][data-status="running"]')?.textContent.includes("thinking it over")`, "the run under way");
    const first = `document.querySelector('.message[data-role="user"]')`;
    await page.evaluate(`${first}.querySelector("button.rewind").click()`);
    assert.match(await page.evaluate<string>(`${first}.querySelector(".rewind-note").textContent`), /A run is under way: wait for it to end, or cancel it/);
    assert.equal(await page.evaluate(`${first}.querySelector(".rewind-confirm").hidden`), true);
    release();
    await replied(page, 2);
    await until(page, `${first}.querySelector(".rewind-panel").hidden`, "the reason gone with the run");
    assert.equal((await lastReply(page)).text, "thinking it over");
    assert.equal(fake.requests.length, 5);
    assert.deepEqual(page.console(), []);
  });

  test("a session is renamed from the list, and deleted after a confirm; the one open is then closed", async () => {
    const { server } = await harness({ replies: [{ text: "hello" }] });
    const page = await openUi(`${server.url}/`);
    const kept = await newSession(page);
    const doomed = await newSession(page);
    await send(page, "hi");
    await replied(page);
    const row = (id: string) => `document.querySelector('#sessions li[data-session-id="${id}"]')`;

    // Rename: a bad title is refused in place, Esc leaves the form, then a good one is kept.
    await page.evaluate(`${row(kept)}.querySelector(".session-rename").click()`);
    await until(page, `${row(kept)}.querySelector("input.session-title-input")`, "the title form");
    await page.evaluate(`(() => { const input = ${row(kept)}.querySelector("input"); input.value = "   "; ${row(kept)}.querySelector("form").requestSubmit(); })()`);
    assert.equal(await page.evaluate(`${row(kept)}.querySelector(".session-problem").textContent`), "a title must not be empty");
    await page.evaluate(`${row(kept)}.querySelector("input").dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }))`);
    assert.equal(await page.evaluate(`Boolean(${row(kept)}.querySelector("form"))`), false);
    await page.evaluate(`${row(kept)}.querySelector(".session-rename").click()`);
    await page.evaluate(`(() => { const input = ${row(kept)}.querySelector("input"); input.value = "  My <b>plan</b>  "; ${row(kept)}.querySelector("form").requestSubmit(); })()`);
    await until(page, `${row(kept)}?.querySelector(".session-title")?.textContent === "My <b>plan</b>"`, "the new title in the list");
    const listed = await (await fetch(`${server.url}/sessions?userId=${USER}`)).json() as { sessionId: string; title: string }[];
    assert.equal(listed.find((s) => s.sessionId === kept)?.title, "My <b>plan</b>");

    // Delete asks first: Keep keeps it; Delete deletes it, and the page leaves it as it was open.
    await page.evaluate(`${row(doomed)}.querySelector(".session-delete").click()`);
    await until(page, `${row(doomed)}.querySelector(".session-confirm")`, "the question");
    await page.evaluate(`${row(doomed)}.querySelector(".session-delete-keep").click()`);
    assert.equal(await page.evaluate(`Boolean(${row(doomed)}.querySelector(".session-confirm"))`), false);
    assert.equal((await fetch(`${server.url}/sessions?userId=${USER}`).then((r) => r.json())).length, 2);
    await page.evaluate(`${row(doomed)}.querySelector(".session-delete").click()`);
    await page.evaluate(`${row(doomed)}.querySelector(".session-delete-confirm").click()`);
    await until(page, `!${row(doomed)} && ${row(kept)}`, "the session gone from the list");
    await until(page, `document.getElementById("composer").hidden && document.querySelectorAll("#conversation .message").length === 0`, "the deleted session closed");
    assert.equal(await page.evaluate(`document.getElementById("session-name").textContent`), "no session open: start one with + New session, or open one from the list");
    assert.equal(await page.evaluate(`document.getElementById("mode-row").hidden`), true, "no permission mode without a session");
    assert.equal(await page.evaluate(`document.getElementById("problem").hidden`), true);
    assert.equal(await page.evaluate("location.hash"), "");
    assert.deepEqual((await fetch(`${server.url}/sessions?userId=${USER}`).then((r) => r.json())).map((s: { sessionId: string }) => s.sessionId), [kept]);
    // The other session still opens.
    await page.evaluate(`${row(kept)}.querySelector("button.session").click()`);
    await until(page, `!document.getElementById("composer").hidden && document.getElementById("status").dataset.status === "idle"`, "the other session open");
    assert.equal(await page.evaluate(`document.getElementById("mode-row").hidden`), false);
    assert.deepEqual(page.console(), []);
  });
});
