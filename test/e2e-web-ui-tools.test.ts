// What the web UI shows of tools beyond their output, in headless Chromium against a real `harness
// serve` with the fake model: the lines an edit removes and adds (while it waits for approval too),
// and the background shells, with Kill.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { USER, webUiTesting } from "./web-ui-support.ts";

describe("the web UI's tool views", () => {
  const { harness, openUi, until, click, send, newSession, mode, replied } = webUiTesting();

  /** The rows of the diff of the `index`th call: each as its kind and text, open ones only. */
  const diffOf = (index: number) => `[...document.querySelectorAll(".tool-call")[${index}].querySelectorAll(".edit-diff > pre > .diff-row")].map((r) => r.dataset.kind + " " + r.textContent)`;

  test("Write, Edit and MultiEdit calls show the lines they remove and add, long ones folded, text as text", async () => {
    const long = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n");
    const { server } = await harness({
      replies: [
        { toolUses: [{ name: "Write", input: { file_path: "page.html", content: "<b>bold</b>\n<img src=x onerror=alert(1)>\n" } }] },
        {
          toolUses: [
            { name: "Edit", input: { file_path: "page.html", old_string: "<b>bold</b>", new_string: "<i>italic</i>" } },
            { name: "MultiEdit", input: { file_path: "long.txt", edits: [{ old_string: "a", new_string: long }, { old_string: "keep\ngone", new_string: "keep" }] } },
          ],
        },
        { text: "done" },
      ],
    });
    const page = await openUi(`${server.url}/`);
    await newSession(page);
    await send(page, "write it");
    // Waiting for approval, the Write shows what it would write: every line added.
    await until(page, `document.querySelector('.tool-call[data-status="awaiting-approval"] .edit-diff:not([hidden])')`, "the diff of the call awaiting approval");
    assert.deepEqual(await page.evaluate(diffOf(0)), ["added + <b>bold</b>", "added + <img src=x onerror=alert(1)>"]);
    assert.equal(await page.evaluate(`document.querySelectorAll(".edit-diff b, .edit-diff img").length`), 0);
    const colours = await page.evaluate<{ added: string; font: string }>(`(() => { const row = document.querySelector(".diff-row"); const s = getComputedStyle(row); return { added: s.color, font: s.fontFamily }; })()`);
    assert.match(colours.font, /monospace/);
    // Edits asked about from here on are accepted (the run takes the mode from its next call).
    await mode(page, "acceptEdits");
    await click(page, ".tool-call .approve");
    await replied(page);
    assert.deepEqual(await page.evaluate(diffOf(1)), ["removed - <b>bold</b>", "added + <i>italic</i>"]);
    const removedColour = await page.evaluate<string>(`getComputedStyle(document.querySelectorAll(".tool-call")[1].querySelector('.diff-row[data-kind="removed"]')).color`);
    assert.notEqual(removedColour, colours.added, "removed and added lines differ in colour");
    // The long MultiEdit: the first 20 rows open, the rest folded, the second edit after a gap.
    const multi = `document.querySelectorAll(".tool-call")[2]`;
    const open = await page.evaluate<string[]>(diffOf(2));
    assert.equal(open.length, 20);
    assert.deepEqual(open.slice(0, 3), ["removed - a", "added + line 1", "added + line 2"]);
    assert.equal(await page.evaluate(`${multi}.querySelector(".edit-diff details").open`), false);
    assert.equal(await page.evaluate(`${multi}.querySelector(".edit-diff summary").textContent`), "14 more lines");
    const folded = await page.evaluate<string[]>(`[...${multi}.querySelectorAll(".edit-diff details .diff-row")].map((r) => r.dataset.kind + " " + r.textContent)`);
    assert.deepEqual(folded.slice(-4), ["added + line 30", "gap …", "same   keep", "removed - gone"]);
    assert.deepEqual(await page.evaluate(`window.violations`), []);
    assert.deepEqual(page.console(), []);
  });

  test("background shells are listed live with their status and running time; Kill stops one during a run, and one between runs", async () => {
    const loop = (name: string) => `echo ${name}; while [ ! -e stop-${name} ]; do sleep 0.1; done`;
    const { server, dataDir } = await harness({
      replies: [
        { toolUses: [{ name: "Bash", input: { command: loop("one"), run_in_background: true } }, { name: "Bash", input: { command: loop("two"), run_in_background: true } }] },
        { toolUses: [{ name: "Bash", input: { command: "while [ ! -e release ]; do sleep 0.1; done; exit 3" } }] },
        { text: "all started" },
      ],
    });
    const page = await openUi(`${server.url}/`);
    const sessionId = await newSession(page);
    const workspace = join(dataDir, "workspaces", USER, sessionId);
    assert.equal(await page.evaluate(`document.getElementById("shells").hidden`), true);
    await mode(page, "fullAuto");
    await send(page, "start them");
    await until(page, `document.querySelectorAll('#shells li[data-status="running"]').length === 2`, "two running shells listed");
    const rows = () => page.evaluate<{ id: string; status: string; time: string; command: string; kill: boolean }[]>(`[...document.querySelectorAll("#shells li")].map((li) => ({
      id: li.querySelector(".shell-id").textContent, status: li.querySelector(".shell-status").textContent, time: li.querySelector(".shell-time").textContent,
      command: li.querySelector(".shell-command").textContent, kill: Boolean(li.querySelector("button.shell-kill")) }))`);
    const [one, two] = await rows();
    assert.match(one.id, /^[0-9a-f]{6}$/);
    assert.deepEqual([one.command, one.status, one.kill], [loop("one"), "running", true]);
    assert.equal(two.command, loop("two"));
    assert.match(await page.evaluate<string>(`document.querySelector("#shells h2").textContent`), /^Background shells: 2 running of 2$/);
    // The running time counts on with no new state.
    await until(page, `/^[1-9]\d*s$/.test(document.querySelector("#shells .shell-time").textContent)`, "the running time to count");

    // During the run Kill stops the first.
    await until(page, `document.querySelector('.tool-call[data-status="running"]')`, "the run's foreground call");
    await click(page, `#shells li[data-shell-id="${one.id}"] button.shell-kill`);
    await until(page, `document.querySelector('#shells li[data-shell-id="${one.id}"]').dataset.status === "killed"`, "the first shell killed");
    assert.equal(await page.evaluate(`Boolean(document.querySelector('#shells li[data-shell-id="${one.id}"] button.shell-kill'))`), false);
    assert.equal(await page.evaluate(`document.querySelector(".shells-problem").textContent`), "");

    // Between runs Kill stops the second all the same: no run is started for it.
    await writeFile(join(workspace, "release"), "");
    await replied(page);
    const messages = await page.evaluate<number>(`document.querySelectorAll(".message").length`);
    await click(page, `#shells li[data-shell-id="${two.id}"] button.shell-kill`);
    await until(page, `document.querySelector('#shells li[data-shell-id="${two.id}"]').dataset.status === "killed"`, "the second shell killed between runs");
    assert.equal(await page.evaluate(`document.querySelector(".shells-problem").textContent`), "");
    assert.equal(await page.evaluate<number>(`document.querySelectorAll(".message").length`), messages, "no prompt was sent");
    assert.match(await page.evaluate<string>(`document.querySelector("#shells h2").textContent`), /^Background shells: 0 running of 2$/);
    assert.equal(await page.evaluate(`document.getElementById("problem").hidden`), true);
    assert.equal(existsSync(join(workspace, "stop-one")), false);
    assert.deepEqual(await page.evaluate(`window.violations`), []);
    assert.deepEqual(page.console(), []);
  });
});
