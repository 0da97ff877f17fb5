// `harness chat --local` at a real terminal (under `script`) resized while a run is under way: the
// working row, the typed line and the two status rows below it (the statusLine command's and the
// permission mode's) are drawn again at the new width, and no copy of them is left on the screen or
// in the scrollback. The screen is read as a terminal that wraps its lines again when resized sees it.
// Typed emoji sequences wrap, and the cursor steps over them whole, there too.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { eventually } from "@harness/test-utils";
import { fakeModelForFile, heldReply, localChatWithStatus } from "../../test-support.ts";
import { renderScreen } from "../../test-screen.ts";

const model = fakeModelForFile();

/** A chat at a terminal `columns` wide, and a way to resize that terminal (its window size set on
 * the pseudo-terminal: the chat gets SIGWINCH). */
async function resizableChat(t: { after(fn: () => unknown): void }, name: string, columns: number) {
  const cwd = join(model.dir("harness-resize-"), name);
  const ttyFile = join(model.dir("harness-resize-tty-"), "tty");
  const status = "status of the project, long enough to be cut at forty\nits second line";
  const chat = localChatWithStatus(t, { fakeUrl: model.fake.url, cwd, status, columns, shell: `tty > ${JSON.stringify(ttyFile)}; ` });
  await chat.sees(/Ctrl\+D leaves/);
  const tty = readFileSync(ttyFile, "utf8").trim();
  return { ...chat, resize: (to: number) => execFileSync("stty", ["-F", tty, "cols", String(to), "rows", "24"]) };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
const WORKING = /^[·✢✳✶✻✽] \w+… \(\d+s/;

test("shrinking and growing the terminal during a run leaves one working row, one typed line and two status rows", async (t) => {
  const held = heldReply("Done now.");
  model.fake.push(held.reply);
  t.after(held.release);
  const chat = await resizableChat(t, "resized", 60);
  chat.type("take your time\r");
  await chat.sees(/esc to interrupt/);
  chat.type("draft");
  await chat.bottom(/accept edits on/);
  for (const width of [40, 25, 70]) {
    chat.resize(width);
    await settle();
  }
  // The chat draws again at the last width once it has heard of it.
  await eventually(() => {
    const rows = renderScreen(chat.screen(), 70, 24);
    const shown = rows.join("\n");
    assert.equal(rows.filter((row) => WORKING.test(row)).length, 1, shown);
    assert.equal(rows.filter((row) => row === "draft").length, 1, shown);
    assert.equal(rows.filter((row) => row.startsWith("status of the project")).length, 1, shown);
    assert.equal(rows.filter((row) => row.includes("accept edits on")).length, 1, shown);
    assert.deepEqual(rows.slice(-4).map((row) => row.slice(0, 12)), [rows.find((row) => WORKING.test(row))!.slice(0, 12), "draft", "status of th", "⏵⏵ accept ed"], shown);
  });
  held.release();
  await chat.shows(/^Done now\.$/m);
  chat.type("\x15\x04");
  assert.equal(await chat.closed, 0);
});

test("a typed line of emoji sequences wraps at the terminal's edge, and Backspace takes one off whole", async (t) => {
  const chat = await resizableChat(t, "emoji", 20);
  const family = "👨\u200d👩\u200d👧";
  for (let i = 0; i < 12; i++) {
    chat.type(family);
    await settle();
  }
  await chat.shows(new RegExp(`^${family.repeat(2)}$`, "m"));
  chat.type("\x1b[D\x7f");
  await settle();
  chat.type("x");
  await chat.shows(new RegExp(`^${family.repeat(10)}\\nx${family}$`, "m"));
  chat.type("\x1b[F\x15\x04");
  assert.equal(await chat.closed, 0);
});
