import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@harness/test-utils";
import { checkSharedToken } from "../config.ts";
import { reloadingTokens } from "./tokens-reload.ts";

const ANN = "ann-token-0123456789abcdef";
const SHARED = "shared-token-0123456789abcdef";

test("a version holding the shared token is refused, and the tokens before it stay; a good one and reload() say how many are in force", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "harness-tokens-reload-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, "tokens");
  await writeFile(file, `ann ${ANN}\n`);
  const lines: string[] = [];
  const changes: number[] = [];
  const tokens = reloadingTokens({
    file,
    initial: new Map([[ANN, "ann"]]),
    minLength: 16,
    check: (next) => checkSharedToken(SHARED, next),
    changed: (next) => changes.push(next.size),
    log: (line) => lines.push(line),
  });
  t.after(() => tokens.stop());

  await writeFile(file, `ann ${ANN}\nbob ${SHARED}\n`);
  await waitFor(() => lines.length > 0, "a log line");
  assert.deepEqual(lines, [`HARNESS_TOKEN is also bob's token in HARNESS_TOKENS_FILE: the shared token must be another; the file is not taken: the 1 token before it stays in force`]);
  assert.deepEqual([...tokens.current()], [[ANN, "ann"]]);

  await writeFile(file, `ann ${ANN}\n`);
  await waitFor(() => lines.length > 1, "a second log line");
  assert.match(lines[1], /tokens re-read: 1 token in force now$/);
  tokens.reload();
  assert.equal(lines.length, 3);
  assert.match(lines[2], /tokens re-read: 1 token in force now$/);
  assert.deepEqual(changes, [1, 1]);
});

/** A tokens file holding ann's token, watched, and the lines its reloads log. */
async function watchedAnn(t: TestContext) {
  const dir = await mkdtemp(join(tmpdir(), "harness-tokens-reload-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, "tokens");
  await writeFile(file, `ann ${ANN}\n`);
  const lines: string[] = [];
  const tokens = reloadingTokens({ file, initial: new Map([[ANN, "ann"]]), minLength: 16, check: () => {}, changed: () => {}, log: (line) => lines.push(line) });
  t.after(() => tokens.stop());
  return { file, lines, tokens };
}

test("an empty version is refused as a save under way; one of comments only takes every token out", async (t) => {
  const { file, lines, tokens } = await watchedAnn(t);

  await writeFile(file, "");
  tokens.reload();
  assert.match(lines.at(-1)!, /tokens is empty \(a save still under way\?\): to take every token out, leave a comment line in it; the file is not taken: the 1 token before it stays in force$/);
  assert.deepEqual([...tokens.current()], [[ANN, "ann"]]);

  await writeFile(file, "# no one for now\n");
  tokens.reload();
  assert.match(lines.at(-1)!, /re-read: 0 tokens in force now$/);
  assert.equal(tokens.current().size, 0);
});

test("a version refused says so once: the same text saved again says nothing more, until reload()", async (t) => {
  const { file, lines, tokens } = await watchedAnn(t);

  await writeFile(file, `ann ${ANN}\nbob short\n`);
  await waitFor(() => lines.length > 0, "a log line");
  await writeFile(file, `ann ${ANN}\nbob short\n`);
  await new Promise((resolve) => setTimeout(resolve, 400));
  assert.equal(lines.length, 1, lines.join("\n"));
  assert.match(lines[0], /bob's token has 5 characters/);
  tokens.reload();
  assert.equal(lines.length, 2);
});
