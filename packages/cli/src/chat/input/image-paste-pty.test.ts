// Images into the prompt of `harness chat --local` at a real terminal (under `script`), against the
// fake Anthropic server, which records what the model was sent: Ctrl+V reads the clipboard with the
// platform's tool (here a fake wl-paste or xclip first on PATH), and a pasted path of an image file
// (a file dragged onto the terminal) attaches it too; each shows as "[Image #N]" and reaches the
// model as an image block, read without an approval (the chat runs in the default mode).
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { TEST_PNG_BASE64 } from "@harness/test-utils";
import { bin, fakeModelForFile, leaveChat } from "../../test-support.ts";
import { inTerminal } from "../../test-screen.ts";

const model = fakeModelForFile();

const START = "\x1b[200~";
const END = "\x1b[201~";
const PNG = Buffer.from(TEST_PNG_BASE64, "base64");

type Tools = Record<string, string>;

/** A local chat in a project of its own, with `tools` (name → sh script) first on PATH and `env`. */
async function chatWith(t: { after(fn: () => unknown): void }, tools: Tools, env: NodeJS.ProcessEnv) {
  const root = model.dir("harness-image-paste-");
  const [cwd, home, tools_] = ["project", "home", "bin"].map((name) => join(root, name));
  for (const dir of [cwd, home, tools_]) mkdirSync(dir);
  writeFileSync(join(root, "clip.png"), PNG);
  for (const [name, script] of Object.entries(tools)) {
    writeFileSync(join(tools_, name), `#!/bin/sh\n${script.replaceAll("CLIP", join(root, "clip.png"))}\n`);
    chmodSync(join(tools_, name), 0o755);
  }
  const line = `exec bash ${JSON.stringify(bin)} chat --local --model claude-sonnet-4-5`;
  // The fake tools, Node 24 and the system's own directories (none of which holds a clipboard tool here).
  const PATH = `${tools_}:${dirname(process.execPath)}:/usr/bin:/bin`;
  const chat = inTerminal(t, line, {
    cwd,
    env: { ...process.env, PATH, HOME: home, ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: model.fake.url, HARNESS_USER: "me", TERM: "xterm", NO_COLOR: "1", HARNESS_BUNDLE: "0", WAYLAND_DISPLAY: "", DISPLAY: "", ...env },
    columns: 100,
  });
  await chat.sees(/Ctrl\+D leaves/);
  return { ...chat, root, cwd };
}

const WL_PASTE = `if [ "$1" = "--list-types" ]; then printf 'text/plain\\nimage/png\\n'; elif [ "$1 $2" = "--type image/png" ]; then cat CLIP; else exit 1; fi`;
const WL_PASTE_TEXT = `if [ "$1" = "--list-types" ]; then printf 'text/plain;charset=utf-8\\nUTF8_STRING\\n'; else echo some text; fi`;
const XCLIP = `case "$*" in *TARGETS*) printf 'TARGETS\\nimage/png\\n';; *"image/png -o"*) cat CLIP;; *) exit 1;; esac`;

/** The last message of the request after the first `before`. */
async function lastMessage(before: number) {
  const [request] = (await model.fake.waitForRequests(before + 1, 30_000)).slice(before); // a local chat starts its own server
  const content = request.body.messages.at(-1)!.content as string | { type: string; text?: string; source?: { data?: string } }[];
  const blocks = typeof content === "string" ? [{ type: "text", text: content }] : content;
  return { text: blocks.map((b) => b.text ?? "").join(""), images: blocks.filter((b) => b.type === "image").map((b) => b.source?.data) };
}

test("Ctrl+V with an image in a Wayland clipboard shows [Image #1] at the cursor; Enter sends the image to the model", async (t) => {
  model.fake.push({ text: "A tiny picture." });
  const before = model.fake.requests.length;
  const chat = await chatWith(t, { "wl-paste": WL_PASTE }, { WAYLAND_DISPLAY: "wayland-0" });
  chat.type("what is ");
  chat.type("\x16");
  await chat.bottom(/^what is \[Image #1\]$/);
  chat.type(" here?\r");
  await chat.shows(/A tiny picture\./);
  const sent = await lastMessage(before);
  assert.deepEqual(sent.images, [TEST_PNG_BASE64]);
  assert.match(sent.text, /^what is @\S+\.png here\?/);
  assert.doesNotMatch(chat.rows().join("\n"), /approv/i, "read without asking");
  // The image is kept in the project, out of its version control.
  const kept = join(chat.cwd, ".harness", "images");
  assert.ok(readdirSync(kept).some((name) => name.endsWith(".png")));
  assert.equal(readFileSync(join(kept, ".gitignore"), "utf8").trim(), "*");
  await leaveChat(chat);
});

test("Ctrl+V with an image in an X11 clipboard reads it with xclip", async (t) => {
  model.fake.push({ text: "Seen." });
  const before = model.fake.requests.length;
  const chat = await chatWith(t, { xclip: XCLIP }, { DISPLAY: ":0" });
  chat.type("\x16");
  await chat.bottom(/^\[Image #1\]$/);
  chat.type("\r");
  await chat.shows(/Seen\./);
  assert.deepEqual((await lastMessage(before)).images, [TEST_PNG_BASE64]);
  await leaveChat(chat);
});

test("Ctrl+V while a reply streams steers the run with the image: the model reads the picture, not its path", async (t) => {
  let release!: () => void;
  model.fake.push({ text: ["Looking", " around\n"], hold: new Promise<void>((resolve) => (release = resolve)) }, { text: "Steered by a picture." });
  t.after(() => release());
  const before = model.fake.requests.length;
  const chat = await chatWith(t, { "wl-paste": WL_PASTE }, { WAYLAND_DISPLAY: "wayland-0" });
  chat.type("go\r");
  await chat.sees(/Looking around/);
  chat.type("and this: ");
  chat.type("\x16");
  await chat.bottom(/^and this: \[Image #1\]$/);
  chat.type("\r");
  await chat.sees(/↳ steer: /);
  // The steer is on its way to the run before the reply ends (see pty.test.ts).
  await new Promise((resolve) => setTimeout(resolve, 300));
  release();
  await chat.shows(/Steered by a picture\./);
  const sent = await lastMessage(before + 1);
  assert.match(sent.text, /^and this: @\S+\.png\n\nContents of \S+\.png:\n\[an image, attached below\]$/);
  assert.deepEqual(sent.images, [TEST_PNG_BASE64]);
  assert.doesNotMatch(chat.rows().join("\n"), /approv/i, "read without asking");
  await leaveChat(chat);
});

test("Ctrl+V with no image in the clipboard says so and types nothing", async (t) => {
  model.fake.push({ text: "No picture." });
  const before = model.fake.requests.length;
  const chat = await chatWith(t, { "wl-paste": WL_PASTE_TEXT }, { WAYLAND_DISPLAY: "wayland-0" });
  chat.type("\x16");
  await chat.shows(/no image in the clipboard/);
  assert.doesNotMatch(chat.rows().join("\n"), /some text|\[Image/);
  chat.type("plain\r");
  await chat.shows(/No picture\./);
  assert.deepEqual(await lastMessage(before), { text: "plain", images: [] });
  await leaveChat(chat);
});

test("Ctrl+V with no clipboard tool installed names the one to install; \"?\" lists Ctrl+V among the keys", async (t) => {
  const chat = await chatWith(t, {}, { WAYLAND_DISPLAY: "wayland-0" });
  chat.type("?");
  await chat.shows(/Ctrl\+V +attach the clipboard's image as \[Image #1\]/);
  chat.type("\x16");
  await chat.shows(/wl-paste.*wl-clipboard/);
  await leaveChat(chat);
  const x11 = await chatWith(t, {}, { DISPLAY: ":0" });
  x11.type("\x16");
  await x11.shows(/xclip/);
  await leaveChat(x11);
});

test("Backspace just after [Image #1] takes it off whole, and no image is sent", async (t) => {
  model.fake.push({ text: "Nothing attached." });
  const before = model.fake.requests.length;
  const chat = await chatWith(t, { "wl-paste": WL_PASTE }, { WAYLAND_DISPLAY: "wayland-0" });
  chat.type("see \x16");
  await chat.bottom(/^see \[Image #1\]$/);
  chat.type("\x7f");
  await chat.bottom(/^see ?$/);
  chat.type("nothing\r");
  await chat.shows(/Nothing attached\./);
  assert.deepEqual(await lastMessage(before), { text: "see nothing", images: [] });
  await leaveChat(chat);
});

test("a pasted path of a PNG (a file dragged onto the terminal, quoted) shows [Image #1] and sends the image", async (t) => {
  model.fake.push({ text: "A dragged picture." });
  const before = model.fake.requests.length;
  const chat = await chatWith(t, {}, {});
  const shot = join(chat.root, "my shot.png");
  writeFileSync(shot, PNG);
  chat.type(`look ${START}'${shot}' ${END}`);
  await chat.bottom(/^look \[Image #1\] ?$/);
  chat.type("\r");
  await chat.shows(/A dragged picture\./);
  const sent = await lastMessage(before);
  assert.deepEqual(sent.images, [TEST_PNG_BASE64]);
  assert.ok(existsSync(shot), "the file dragged stays where it was");
  await leaveChat(chat);
});

test("a prompt with an image, recalled with Up, sends the image again", async (t) => {
  model.fake.push({ text: "First look." }, { text: "Second look." });
  const before = model.fake.requests.length;
  const chat = await chatWith(t, { "wl-paste": WL_PASTE }, { WAYLAND_DISPLAY: "wayland-0" });
  chat.type("\x16");
  await chat.bottom(/^\[Image #1\]$/);
  chat.type(" again\r");
  await chat.shows(/First look\./);
  chat.type("\x1b[A");
  await chat.bottom(/^@\.harness\/images\/image-\S+\.png again$/);
  chat.type("\r");
  await chat.shows(/Second look\./);
  assert.deepEqual((await lastMessage(before + 1)).images, [TEST_PNG_BASE64]);
  await leaveChat(chat);
});

test("a pasted path of a file that is not there stays text", async (t) => {
  model.fake.push({ text: "Just a path." });
  const before = model.fake.requests.length;
  const chat = await chatWith(t, {}, {});
  const missing = join(chat.root, "missing.png");
  chat.type(`${START}${missing}${END}`);
  await chat.bottom(/missing\.png$/);
  chat.type("\r");
  await chat.shows(/Just a path\./);
  assert.deepEqual(await lastMessage(before), { text: missing, images: [] });
  await leaveChat(chat);
});
