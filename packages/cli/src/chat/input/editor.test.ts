// Ctrl+G where no file can be made for the editor: the chat says so and keeps the prompt.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createInterface } from "node:readline";
import { PassThrough } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { promptEditing } from "./editor.ts";

test("Ctrl+G with no temporary directory to write the prompt to says why and keeps the prompt, earlier lines and all", async (t) => {
  const input = Object.assign(new PassThrough(), { isTTY: true, isRaw: true, setRawMode: () => undefined });
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: 200 });
  output.resume();
  const editor = createInterface({ input, output, terminal: true, prompt: "" });
  const notes: string[] = [];
  const typed: string[] = [];
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  process.on("unhandledRejection", onRejection);
  const tmp = process.env.TMPDIR;
  process.env.TMPDIR = "/nonexistent/harness-no-tmp";
  t.after(() => {
    process.env.TMPDIR = tmp;
    if (tmp === undefined) delete process.env.TMPDIR;
    process.off("unhandledRejection", onRejection);
    stop();
    editor.close();
  });
  const stop = promptEditing(editor, input, { VISUAL: "true" }, {
    takeEarlier: () => ["first line"],
    note: (text) => notes.push(text),
    pasting: () => false,
    type: (text) => typed.push(text),
    goesOn: () => false,
  });
  input.write("second line");
  await sleep(20);
  input.write("\x07");
  await sleep(50);
  assert.deepEqual(rejections, []);
  assert.match(notes.join("\n"), /✗ the prompt could not be edited: .*harness-no-tmp/);
  assert.deepEqual(typed, ["first line\nsecond line"]);
});
