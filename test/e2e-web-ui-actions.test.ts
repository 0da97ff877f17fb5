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
});
