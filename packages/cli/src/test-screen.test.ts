import { test } from "node:test";
import assert from "node:assert/strict";
import { renderScreen } from "./test-screen.ts";

test("the screen helper overwrites, erases, moves the cursor and wraps as a terminal does", () => {
  assert.deepEqual(renderScreen("abc\rX\r\nline two\x1b[2D\x1b[K!\n"), ["Xbc", "line t!"]);
  assert.deepEqual(renderScreen("reply text\r\ntyped\x1b[1A\x1b[11G more\r\n\x1b[0Jnext"), ["reply text more", "next"]);
  assert.deepEqual(renderScreen("\x1b[2mdim\x1b[0m 0123456789", 8), ["dim 0123", "456789"]);
  assert.deepEqual(renderScreen("12345678\r\nab\x1b[1A\r\x1b[0J12345678x", 8), ["12345678", "x"]);
});

test("the screen helper gives wide characters two columns and wraps one that does not fit", () => {
  assert.deepEqual(renderScreen("中文中文中", 9), ["中文中文", "中"]);
  assert.deepEqual(renderScreen("ab😀cd\r\n中文a中", 5), ["ab😀c", "d", "中文a", "中"]);
});
