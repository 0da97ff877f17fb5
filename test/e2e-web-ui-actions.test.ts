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
});
