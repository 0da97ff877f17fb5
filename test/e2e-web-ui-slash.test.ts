// The web UI's slash-command picker, in headless Chromium against a real `harness serve` with the
// fake model: "/" at the start of the prompt box lists the session's commands with their argument
// hints, narrowed as the name is typed, chosen from the keyboard or with a click, closed with Esc;
// Enter still sends once it is closed.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ChromiumPage } from "@harness/test-utils";
import { USER, webUiTesting } from "./web-ui-support.ts";

const shown = `[...document.querySelectorAll("#slash-picker .slash-option")].map((o) => o.querySelector(".slash-name").textContent + (o.querySelector(".slash-hint") ? " " + o.querySelector(".slash-hint").textContent : ""))`;
const selected = `document.querySelector('#slash-picker [aria-selected="true"] .slash-name')?.textContent`;
const pickerOpen = `!document.getElementById("slash-picker").hidden`;

describe("the web UI's slash-command picker", () => {
  const { harness, openUi, until, send, key, newSession, replied } = webUiTesting();

  const type = (page: ChromiumPage, text: string) => page.send("Input.insertText", { text });

  test("lists the session's commands with their hints, narrows as typed, and puts the chosen one in the box for its arguments", async () => {
    const { server, dataDir, fake } = await harness({ replies: [{ text: "first answer" }, { text: "hello Ann" }, { text: "third" }] });
    const page = await openUi(`${server.url}/`);
    const sessionId = await newSession(page);
    const commands = join(dataDir, "workspaces", USER, sessionId, ".claude", "commands");
    await mkdir(commands, { recursive: true });
    await writeFile(join(commands, "greet.md"), "---\ndescription: Greet someone\nargument-hint: <name>\n---\nSay hello to $ARGUMENTS. (GREET-MARKER)\n");
    await writeFile(join(commands, "grep-logs.md"), "Look through the logs.\n");

    // Before any run the session has said nothing of its commands: the picker says when it will.
    await page.evaluate(`document.getElementById("prompt").focus()`);
    await type(page, "/");
    await until(page, `${pickerOpen} && /once it has run a prompt/.test(document.getElementById("slash-picker").textContent)`, "the note before a run");
    await key(page, "Escape", 27);
    await until(page, `!(${pickerOpen})`, "Esc to close the note");
    await page.evaluate(`document.getElementById("prompt").value = ""`);
    await send(page, "first");
    await replied(page, 1);

    await page.evaluate(`document.getElementById("prompt").focus()`);
    await type(page, "/");
    await until(page, `${pickerOpen} && document.querySelectorAll("#slash-picker .slash-option").length > 5`, "the picker to list the commands");
    const all = await page.evaluate<string[]>(shown);
    assert.ok(all.includes("/greet <name>"), `the custom command with its hint: ${all.join(", ")}`);
    assert.ok(all.includes("/grep-logs") && all.includes("/compact") && all.includes("/review"), all.join(", "));
    assert.equal(await page.evaluate(`document.getElementById("prompt").getAttribute("aria-expanded")`), "true");

    // Narrowed as the name is typed: those starting with it first.
    await type(page, "gr");
    await until(page, `${shown}.length === 2`, "the list narrowed to /gr…");
    assert.deepEqual(await page.evaluate(shown), ["/greet <name>", "/grep-logs"]);
    assert.equal(await page.evaluate(selected), "/greet");
    await key(page, "ArrowDown", 40);
    assert.equal(await page.evaluate(selected), "/grep-logs");
    await key(page, "ArrowDown", 40);
    assert.equal(await page.evaluate(selected), "/greet", "past the last, back to the first");
    await key(page, "ArrowUp", 38);
    assert.equal(await page.evaluate(selected), "/grep-logs");
    await key(page, "ArrowUp", 38);

    // Tab chooses: the name in the box, the picker closed, nothing sent.
    await key(page, "Tab", 9);
    await until(page, `!(${pickerOpen})`, "the picker to close");
    assert.equal(await page.evaluate(`document.getElementById("prompt").value`), "/greet ");
    assert.equal(await page.evaluate(`document.activeElement.id`), "prompt");
    assert.equal(fake.requests.length, 1);

    // The arguments, then Enter sends the command.
    await type(page, "Ann");
    await key(page, "Enter", 13);
    await replied(page, 2);
    assert.match(JSON.stringify(fake.requests[1].body.messages), /Say hello to Ann\. \(GREET-MARKER\)/);
    assert.equal(await page.evaluate(`document.getElementById("prompt").value`), "");

    // Enter chooses too, and a click does.
    await type(page, "/grep");
    await until(page, `${shown}.length === 1`, "the list narrowed to /grep");
    await key(page, "Enter", 13);
    assert.equal(await page.evaluate(`document.getElementById("prompt").value`), "/grep-logs ");
    await page.evaluate(`document.getElementById("prompt").value = ""`);
    await type(page, "/comp");
    await until(page, `${shown}.join() === "/compact"`, "the list narrowed to /compact");
    await page.evaluate(`document.querySelector('#slash-picker [data-name="compact"]').click()`);
    assert.equal(await page.evaluate(`document.getElementById("prompt").value`), "/compact ");
    assert.equal(await page.evaluate(pickerOpen), false);
    assert.equal(fake.requests.length, 2);
    assert.deepEqual(page.console(), []);
    assert.deepEqual(await page.evaluate(`window.violations`), []);
  });

  test("Esc closes the picker and cancels nothing; once closed, Enter sends what is typed, a slash and all", async () => {
    let release!: () => void;
    const hold = new Promise<void>((resolve) => (release = resolve));
    const { server, fake } = await harness({ replies: [{ text: "ready" }, { text: ["working on it"], hold }, { text: "sent as typed" }] });
    const page = await openUi(`${server.url}/`);
    await newSession(page);
    await send(page, "first");
    await replied(page, 1);

    // While a run is under way, Esc in an open picker closes it and leaves the run alone.
    await send(page, "second");
    await until(page, `document.getElementById("status").dataset.status === "running"`, "the run to start");
    await page.evaluate(`document.getElementById("prompt").focus()`);
    await type(page, "/he");
    await until(page, `${pickerOpen} && ${shown}.includes("/help")`, "the picker with /help");
    await key(page, "Escape", 27);
    await until(page, `!(${pickerOpen})`, "Esc to close the picker");
    assert.equal(await page.evaluate(`document.getElementById("status").dataset.status`), "running");
    assert.equal(await page.evaluate(`document.getElementById("prompt").value`), "/he");
    release();
    await replied(page, 2);

    // Closed by Esc, it stays closed for that text: Enter sends it.
    await page.evaluate(`document.getElementById("prompt").value = ""`);
    await send(page, "/nothing-like-this");
    await replied(page, 3);
    assert.match(JSON.stringify(fake.requests[2].body.messages), /\/nothing-like-this/);
    assert.equal(await page.evaluate(pickerOpen), false);
    assert.deepEqual(page.console(), []);
  });
});
