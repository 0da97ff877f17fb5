import { test } from "node:test";
import assert from "node:assert/strict";
import { createInterface } from "node:readline";
import { PassThrough, Writable } from "node:stream";
import { setImmediate as tick } from "node:timers/promises";
import { byFate, lineFates } from "./entered.ts";
import { keepInputLine } from "./input-line.ts";

test("a paste whose lines met a run ending between its reads is one prompt per fate, blank lines kept in theirs", () => {
  assert.deepEqual(
    byFate([
      { text: "steer one", takenOff: true },
      { text: "" },
      { text: "steer two", takenOff: true },
      { text: "prompt one", takenOff: false },
      { text: "prompt two", takenOff: false },
    ]),
    [
      { text: "steer one\n\nsteer two", takenOff: true },
      { text: "prompt one\nprompt two", takenOff: false },
    ],
  );
  assert.deepEqual(byFate([{ text: "" }, { text: "a", takenOff: false }, { text: "b", takenOff: false }]), [{ text: "\na\nb", takenOff: false }]);
  // No terminal keeps the typed line apart: the paste is one prompt, as it was.
  assert.deepEqual(byFate([{ text: "a" }, { text: "b" }]), [{ text: "a\nb" }]);
});

test("each line handed over carries what was done to its typed copy at its Enter, blank lines included", async (t) => {
  const screen = Object.assign(new Writable({ write: (_chunk, _encoding, done) => done() }), { columns: 40, isTTY: true });
  const inputLine = keepInputLine(screen);
  const input = new PassThrough();
  const editor = createInterface({ input, output: inputLine.output, terminal: true, prompt: "" });
  t.after(() => editor.close());
  let steering = false;
  const fates = lineFates(editor, (line) => steering && line.startsWith("steer"));
  inputLine.attach(editor, fates.keepOnEnter);
  const handed: string[] = [];
  editor.on("line", (line) => handed.push(line));
  const chat = inputLine.around(screen);
  const enter = async (keys: string) => {
    for (const key of keys) {
      input.write(key);
      await tick();
    }
  };
  await enter("first\r");
  steering = true;
  // A blank line under a reply's unfinished line: the editor has nothing on the screen to take off.
  chat.write("half a reply");
  await enter("\r");
  await enter("steer this\r");
  await enter("not this\r");
  steering = false;
  await enter("steer later\r");
  assert.deepEqual(handed, ["first", "", "steer this", "not this", "steer later"]);
  assert.deepEqual(
    handed.map(() => fates.next()),
    [false, undefined, true, false, false],
  );
  assert.equal(fates.next(), undefined);
});
