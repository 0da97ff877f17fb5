// Images pasted into `harness chat` on a shared server, at a real terminal (under `script`): its runs
// read the session's workspace on the server, where no file of this machine is, so Ctrl+V says it
// cannot attach the clipboard's image, and a pasted path of an image stays text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { TEST_PNG_BASE64 } from "@harness/test-utils";
import { chatInTerminal, chatServerForFile, leaveChat, tempDir } from "../../test-support.ts";

const server = chatServerForFile("harness-chat-image-shared-");

test("on a shared server, Ctrl+V says the clipboard's image cannot be attached, and a pasted image path is sent as text", async (t) => {
  const dir = tempDir(t);
  const tools = join(dir, "bin");
  mkdirSync(tools);
  const shot = join(dir, "shot.png");
  writeFileSync(shot, Buffer.from(TEST_PNG_BASE64, "base64"));
  writeFileSync(join(tools, "wl-paste"), `#!/bin/sh\nif [ "$1" = "--list-types" ]; then echo image/png; else cat ${JSON.stringify(shot)}; fi\n`);
  chmodSync(join(tools, "wl-paste"), 0o755);
  server.fake.push({ text: "Text only" });
  const before = server.fake.requests.length;
  const env = { NO_COLOR: "1", HARNESS_URL: server.url, HARNESS_USER: "image", CLAUDE_CONFIG_DIR: tempDir(t), HARNESS_BUNDLE: "0", WAYLAND_DISPLAY: "wayland-0", PATH: `${tools}:${dirname(process.execPath)}:/usr/bin:/bin` };
  const chat = chatInTerminal(t, `--session image-${process.pid}`, { cwd: dir, env, columns: 100 });
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("\x16");
  await chat.shows(/Ctrl\+V: the runs of this chat read files on the server .*harness chat --local can/s);
  chat.type(`\x1b[200~${shot}\x1b[201~`);
  await chat.bottom(/shot\.png$/);
  chat.type("\r");
  await chat.sees(/Text only/);
  const [request] = (await server.fake.waitForRequests(before + 1)).slice(before);
  const content = request.body.messages.at(-1)!.content;
  assert.equal(typeof content === "string" ? content : content.map((b: { text?: string }) => b.text ?? "").join(""), shot);
  await leaveChat(chat);
});
