// `harness chat` in a real terminal while the model is slow to answer: a row below the reply and
// above the typed line says the agent works, with the seconds of the run going up and the tokens
// out so far, as Claude Code's does; it is gone, leaving nothing behind, once the reply comes. A
// second terminal on the session counts from the run's start. A piped chat prints none.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { bin, chatInTerminal, chatServerForFile, heldReply, pause, root } from "../../test-support.ts";

const server = chatServerForFile("harness-chat-working-");

const env = (): NodeJS.ProcessEnv => ({ ...process.env, NO_COLOR: "1", HARNESS_URL: server.url, HARNESS_USER: "working", TERM: "xterm", HARNESS_BUNDLE: "0" });

/** The working row, its seconds caught. */
const ROW = /^[·✢✳✶✻✽] \w+… \((\d+)s(?: · ↓ ([\d.]+k?) tokens)? · esc to interrupt\)$/;

test("while the model holds its reply, a row below the prompt counts the seconds up, above the typed line; the reply takes its place", async (t) => {
  const held = heldReply("Here it is.");
  server.fake.push(held.reply);
  t.after(() => held.release());
  const chat = chatInTerminal(t, "--session working-row", { env: env(), columns: 60 });
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("take your time\r");
  await chat.sees(/\(0s · esc to interrupt\)/);
  chat.type("draft");
  await chat.bottom(/^draft$/);
  // The seconds go up while the typed line stays below the row.
  await chat.shows(/\(2s · esc to interrupt\)/);
  const rows = chat.rows();
  assert.match(rows.at(-2)!, ROW, rows.join("\n"));
  assert.equal(rows.at(-3), "take your time", rows.join("\n"));
  assert.equal(rows.at(-1), "draft", rows.join("\n"));
  held.release();
  await chat.shows(/^Here it is\.$/m);
  // The run ends just after its text, and the row with it.
  for (let waited = 0; chat.rows().some((row) => ROW.test(row)); waited += 20) {
    if (waited > 20_000) throw new Error(`the working row stayed:\n${chat.rows().join("\n")}`);
    await pause(20);
  }
  const after = chat.rows();
  assert.deepEqual(after.slice(after.indexOf("take your time")), ["take your time", "Here it is.", "draft"], after.join("\n"));
  assert.doesNotMatch(after.join("\n"), /esc to interrupt/);
  chat.type("\x15\x04");
  assert.equal(await chat.closed, 0);
});

/** Resolves once `met()`, or fails saying `what()`. */
async function until(met: () => boolean, what: () => string): Promise<void> {
  for (let waited = 0; !met(); waited += 20) {
    if (waited > 20_000) throw new Error(what());
    await pause(20);
  }
}

/** The tokens the working row on `rows` says, 0 when it says none. */
function tokensOn(rows: string[]): number {
  const said = rows.map((row) => ROW.exec(row)?.[2]).find((tokens) => tokens !== undefined);
  return said === undefined ? 0 : said.endsWith("k") ? Number(said.slice(0, -1)) * 1000 : Number(said);
}

test("while a long reply streams in slowly, the row's count of tokens grows with it", async (t) => {
  const gate = Promise.withResolvers<void>();
  t.after(() => gate.resolve());
  server.fake.push({
    async *textChunks() {
      await gate.promise;
      for (let i = 0; i < 40; i++) {
        yield `${"word ".repeat(39)}word\n`;
        await pause(150);
      }
    },
  });
  const chat = chatInTerminal(t, "--session working-tokens", { env: env(), columns: 80 });
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("write a lot\r");
  await chat.sees(/\(0s · esc to interrupt\)/);
  assert.equal(tokensOn(chat.rows()), 0, "nothing before the first token");
  gate.resolve();
  await chat.shows(/ · ↓ \d+ tokens · esc to interrupt\)$/m);
  const first = tokensOn(chat.rows());
  await until(() => tokensOn(chat.rows()) >= first + 200, () => `the tokens did not grow from ${first}:\n${chat.rows().join("\n")}`);
  await chat.shows(/ · ↓ \d\.\dk tokens · esc to interrupt\)$/m);
  await until(() => !chat.rows().some((row) => ROW.test(row)), () => `the working row stayed:\n${chat.rows().join("\n")}`);
  chat.type("\x15\x04");
  assert.equal(await chat.closed, 0);
});

test("a second terminal joining a run under way counts its time from the run's start, not from the join", async (t) => {
  const held = heldReply("Both see it.");
  server.fake.push(held.reply);
  t.after(() => held.release());
  const first = chatInTerminal(t, "--session working-join", { env: env(), columns: 60 });
  await first.sees(/Ctrl\+D leaves/);
  first.type("take your time\r");
  await first.shows(/\(3s · esc to interrupt\)/);
  const second = chatInTerminal(t, "--session working-join", { env: env(), columns: 60 });
  await second.sees(/esc to interrupt/);
  const seconds = Number(ROW.exec(second.rows().find((row) => ROW.test(row)) ?? "")?.[1]);
  assert.ok(seconds >= 3, `the joining chat counts from its join:\n${second.rows().join("\n")}`);
  held.release();
  await first.shows(/^Both see it\.$/m);
  await second.shows(/^Both see it\.$/m);
  for (const chat of [first, second]) {
    chat.type("\x15\x04");
    assert.equal(await chat.closed, 0);
  }
});

test("a piped chat prints no working row, however long the model takes", async () => {
  const held = heldReply("Late answer.");
  server.fake.push(held.reply);
  const before = server.fake.requests.length;
  const child = spawn("bash", [bin, "chat", "--session", "working-piped"], { cwd: root, env: env(), stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stdin.end("take your time\n");
  await server.fake.waitForRequests(before + 1);
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  held.release();
  const [code] = await once(child, "close");
  assert.equal(code, 0, out);
  assert.match(out, /Late answer\./);
  assert.doesNotMatch(out, /esc to interrupt|[✢✳✶✻✽]/, out);
});
