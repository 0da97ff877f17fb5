import { test } from "node:test";
import assert from "node:assert/strict";
import { clusters, cut, printable, width } from "./terminal-text.ts";

const WOMAN_CODING = "👩\u200d💻";
const FAMILY = "👨\u200d👩\u200d👧";
const FLAG = "🇫🇷";
const THUMB = "👍🏽";
const KEYCAP = "1\ufe0f\u20e3";
const HEART = "❤\ufe0f";
const E_ACUTE = "e\u0301";

test("each emoji sequence takes the two columns a terminal draws it in, a letter with its accent one", () => {
  for (const emoji of [WOMAN_CODING, FAMILY, FLAG, THUMB, KEYCAP, HEART]) assert.equal(width(emoji), 2, emoji);
  assert.equal(width(E_ACUTE), 1);
  assert.equal(width(`caf${E_ACUTE} ${FAMILY}!`), 8);
  assert.equal(width("中文 ok"), 7);
  assert.equal(width("plain ASCII"), 11);
});

test("text is split into what a terminal draws as one character", () => {
  assert.deepEqual(clusters(`a${WOMAN_CODING}${E_ACUTE}${FLAG}`), ["a", WOMAN_CODING, E_ACUTE, FLAG]);
  assert.deepEqual(clusters("abc"), ["a", "b", "c"]);
});

test("a cut never splits an emoji sequence or a letter from its accent", () => {
  assert.equal(cut(`ab${FAMILY}cd`, 4), "ab…");
  assert.equal(cut(`ab${FAMILY}cd`, 5), `ab${FAMILY}…`);
  assert.equal(cut(`${FAMILY}${FAMILY}`, 4), `${FAMILY}${FAMILY}`);
  assert.equal(cut(`${E_ACUTE}${E_ACUTE}${E_ACUTE}x`, 3), `${E_ACUTE}${E_ACUTE}…`);
  assert.equal(cut(`${FLAG}${FLAG}${FLAG}`, 4), `${FLAG}…`);
});

test("control sequences are still dropped from text shown", () => {
  assert.equal(printable(`\x1b[2Jhi\x07 ${FAMILY}\r`), `[2Jhi ${FAMILY}`);
});
