// Text pasted into the middle of the line being typed into `harness chat --local`, at a real
// terminal (under `script`): a paste that makes the line wrap, one into a line that already wraps
// (a run under way), one with emoji sequences and combining marks, one with tabs. The typed line is
// drawn once, the status rows below it once, nothing is left over in the scrollback, and what is
// typed after the paste and Enter act on the line as shown.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { eventually } from "@harness/test-utils";
import { fakeModelForFile, heldReply, localChatWithStatus } from "../../test-support.ts";

const model = fakeModelForFile();

const COLUMNS = 30;

/** A local chat at a terminal COLUMNS wide, with a status line of two rows and the mode's row below. */
async function chatAt(t: { after(fn: () => unknown): void }, name: string) {
  const chat = localChatWithStatus(t, { fakeUrl: model.fake.url, cwd: join(model.dir("harness-paste-"), name), status: "status one\nstatus two", columns: COLUMNS });
  await chat.sees(/Ctrl\+D leaves/);
  await chat.bottom(/accept edits on/);
  return chat;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

/** The rows at the bottom of the terminal are `typed` (the typed line's), then the status row and
 * the mode's; `once` (the typed line's rows, the working row, …) each appear once in all the
 * terminal shows, the scrollback included. */
function assertBottom(rows: string[], typed: string[], once: RegExp[] = []): void {
  const shown = rows.join("\n");
  assert.deepEqual(rows.slice(-typed.length - 2, -1), [...typed, "status one"], shown);
  assert.match(rows.at(-1)!, /accept edits on/, shown);
  for (const row of [...typed.filter((row) => row.length > 3), "status one"]) assert.equal(rows.filter((r) => r === row).length, 1, `${row}\n${shown}`);
  for (const pattern of [/accept edits on/, ...once]) assert.equal(rows.filter((r) => pattern.test(r)).length, 1, `${pattern}\n${shown}`);
}

/** The text of the last prompt the model was sent. */
async function lastPrompt(count: number): Promise<string> {
  const requests = await model.fake.waitForRequests(count);
  const message = requests[count - 1].body.messages.at(-1) as { content: string | { type: string; text?: string }[] };
  return typeof message.content === "string" ? message.content : message.content.map((part) => part.text ?? "").join("");
}

test("a one-line paste into the middle of the typed line wraps it; what is typed after edits it there, and Enter sends it as shown", async (t) => {
  model.fake.push({ text: "Sent." });
  const before = model.fake.requests.length;
  const chat = await chatAt(t, "short");
  chat.type("hello world, this is long");
  chat.type("\x1b[D".repeat(12));
  await settle();
  chat.type("PASTED TEXT ");
  await eventually(() => assertBottom(chat.rows(), ["hello world, PASTED TEXT this", "is long"]));
  chat.type("x\x7f\x7fy");
  await eventually(() => assertBottom(chat.rows(), ["hello world, PASTED TEXTythis", "is long"]));
  chat.type("\r");
  await chat.shows(/^Sent\.$/m);
  assert.equal(await lastPrompt(before + 1), "hello world, PASTED TEXTythis is long");
  chat.type("\x04");
  assert.equal(await chat.closed, 0);
});

test("a paste into the middle of a line that already wraps, while a run is under way, keeps the working row and the status rows where they were", async (t) => {
  const held = heldReply("Done now.");
  model.fake.push(held.reply);
  t.after(held.release);
  const chat = await chatAt(t, "wrapped");
  chat.type("take your time\r");
  // The working row, whose random verb may leave no room for more at this width.
  await chat.sees(/… \(\d+s · /);
  chat.type("0123456789".repeat(4));
  chat.type("\x1b[D".repeat(35));
  await settle();
  chat.type("abcdefghijklmnopqrstuvwxyz");
  await eventually(() => assertBottom(chat.rows(), ["01234abcdefghijklmnopqrstuvwxy", "z56789012345678901234567890123", "456789"], [/^. \w+… \(\d+s/]));
  chat.type("!\x7f\x7f");
  await eventually(() => assertBottom(chat.rows(), ["01234abcdefghijklmnopqrstuvwxy", "567890123456789012345678901234", "56789"], [/^. \w+… \(\d+s/]));
  held.release();
  await chat.shows(/^Done now\.$/m);
  chat.type("\x1b[F\x15\x04");
  assert.equal(await chat.closed, 0);
});

const FAMILY = "👨\u200d👩\u200d👧";
const FLAG = "🇫🇷";

test("a paste of emoji sequences and combining marks into the middle wraps them whole, and Enter sends them as shown", async (t) => {
  model.fake.push({ text: "Sent." });
  const before = model.fake.requests.length;
  const chat = await chatAt(t, "emoji");
  chat.type("start 01234567890123456789 end");
  chat.type("\x1b[D".repeat(4));
  await settle();
  chat.type(`e\u0301${FAMILY}${FLAG}`);
  // The family takes the row's last two columns; the flag would straddle its edge, and starts the next row.
  await eventually(() => assertBottom(chat.rows(), [`start 01234567890123456789e\u0301${FAMILY}`, `${FLAG} end`]));
  chat.type("\x7fz");
  await eventually(() => assertBottom(chat.rows(), [`start 01234567890123456789e\u0301${FAMILY}z`, " end"]));
  chat.type("\r");
  await chat.shows(/^Sent\.$/m);
  assert.equal(await lastPrompt(before + 1), `start 01234567890123456789e\u0301${FAMILY}z end`);
  chat.type("\x04");
  assert.equal(await chat.closed, 0);
});

test("a paste with tabs into the middle of a line that wraps shows each tab as spaces to the row's next tab stop, and Enter sends the tabs", async (t) => {
  model.fake.push({ text: "Sent." });
  const before = model.fake.requests.length;
  const chat = await chatAt(t, "tabs");
  chat.type("0123456789".repeat(4));
  chat.type("\x1b[D".repeat(12));
  await settle();
  chat.type("a\tb\tc");
  // The first tab, a column from the row's end, takes that column; the second goes to column 8.
  await eventually(() => assertBottom(chat.rows(), ["0123456789012345678901234567a", "b       c890123456789"]));
  chat.type("xy\x1b[D".repeat(1));
  await settle();
  chat.type("\x7f");
  await eventually(() => assertBottom(chat.rows(), ["0123456789012345678901234567a", "b       cy890123456789"]));
  chat.type("\r");
  await chat.shows(/^Sent\.$/m);
  assert.equal(await lastPrompt(before + 1), "0123456789012345678901234567a\tb\tcy890123456789");
  assert.equal(chat.rows().filter((row) => row.startsWith("0123456789")).length, 1, chat.rows().join("\n"));
  chat.type("\x04");
  assert.equal(await chat.closed, 0);
});

test("a paste that fills the typed line's last row to its edge, from the middle, leaves the cursor where what is typed next goes", async (t) => {
  const chat = await chatAt(t, "edge");
  chat.type("0123456789".repeat(5));
  chat.type("\x1b[D".repeat(10));
  await settle();
  chat.type("abcdefghij");
  await eventually(() => assertBottom(chat.rows(), ["0123456789".repeat(3), "0123456789abcdefghij0123456789", ""]));
  chat.type("\x1b[F!");
  await eventually(() => assertBottom(chat.rows(), ["0123456789".repeat(3), "0123456789abcdefghij0123456789", "!"]));
  chat.type("\x15\x04");
  assert.equal(await chat.closed, 0);
});

test("lines pasted at once into the middle of the typed line leave one copy of each row on the screen", async (t) => {
  const held = heldReply("Done now.");
  model.fake.push(held.reply);
  t.after(held.release);
  const chat = await chatAt(t, "lines");
  chat.type("start of a line long enough to wrap, end");
  chat.type("\x1b[D".repeat(5));
  await settle();
  chat.type("one\rtwo\rthree");
  // The working row, whose random verb may leave no room for more at this width.
  await chat.sees(/… \(\d+s · /);
  // The terminal hands the lines over as typed: the first goes into the line, which Enter sends
  // whole with the second; the last, unended, stays typed.
  await eventually(() => assertBottom(chat.rows(), ["three"], [/^. \w+… \(\d+s/, /^start of a line/, /^two$/]));
  held.release();
  await chat.shows(/^Done now\.$/m);
  chat.type("\x1b[F\x15\x04");
  assert.equal(await chat.closed, 0);
});
