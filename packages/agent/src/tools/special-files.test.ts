// Named pipes, devices and /proc files: a tool answers at once with what the file is, never
// blocks on a pipe nobody writes to or reads a device that never ends.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { callTool, tempWorkspace } from "../testing/fixtures.ts";
import { editTool } from "./edit.ts";
import { grepTool } from "./grep/grep.ts";
import { multiEditTool } from "./multi-edit.ts";
import { notebookEditTool } from "./notebook/notebook-edit.ts";
import { readTool } from "./read.ts";
import { writeTool } from "./write.ts";

/** Fails the test instead of hanging it when a call blocks. */
async function promptly<T>(call: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not answer within 5 s`)), 5000)));
  try {
    return await Promise.race([call, late]);
  } finally {
    clearTimeout(timer);
  }
}

test("a named pipe is refused by every file tool, at once", async (t) => {
  const cwd = await tempWorkspace(t);
  const pipe = path.join(cwd, "build.pipe");
  execFileSync("mkfifo", [pipe, path.join(cwd, "pipe.ipynb")]);
  const calls: [string, Promise<{ content: string; isError?: boolean }>][] = [
    ["Read", callTool(readTool, { file_path: "build.pipe" }, cwd)],
    ["Write", callTool(writeTool, { file_path: "build.pipe", content: "x" }, cwd)],
    ["Edit", callTool(editTool, { file_path: "build.pipe", old_string: "a", new_string: "b" }, cwd)],
    ["MultiEdit", callTool(multiEditTool, { file_path: "build.pipe", edits: [{ old_string: "a", new_string: "b" }] }, cwd)],
    ["NotebookEdit", callTool(notebookEditTool, { notebook_path: "pipe.ipynb", cell_id: "c1", new_source: "x" }, cwd)],
    ["Grep", callTool(grepTool, { pattern: "x", path: "build.pipe" }, cwd)],
  ];
  for (const [name, call] of calls) {
    const result = await promptly(call, name);
    assert.equal(result.isError, true, name);
    assert.match(result.content, /(build\.pipe|pipe\.ipynb) is a named pipe \(FIFO\), not a regular file/, name);
  }
  // Nothing blocked a thread of the pool: ordinary files still read.
  await fs.writeFile(path.join(cwd, "a.txt"), "fine\n");
  assert.equal((await promptly(callTool(readTool, { file_path: "a.txt" }, cwd), "Read after")).content, "     1\tfine");
});

test("devices are refused rather than read to no end, and /proc files are read though they say they are empty", async (t) => {
  const cwd = await tempWorkspace(t);
  for (const device of ["/dev/zero", "/dev/urandom"]) {
    const read = await promptly(callTool(readTool, { file_path: device }, cwd), `Read ${device}`);
    assert.equal(read.isError, true);
    assert.match(read.content, /is a character device, not a regular file/);
    const edited = await promptly(callTool(editTool, { file_path: device, old_string: "a", new_string: "b" }, cwd), `Edit ${device}`);
    assert.match(edited.content, /is a character device/);
  }
  // A .png name on a device: refused before it is taken for an image.
  await fs.symlink("/dev/zero", path.join(cwd, "shot.png"));
  assert.match((await promptly(callTool(readTool, { file_path: "shot.png" }, cwd), "Read shot.png")).content, /character device/);

  const cpuinfo = await callTool(readTool, { file_path: "/proc/self/status", limit: 3 }, cwd);
  assert.equal(cpuinfo.isError, undefined);
  assert.match(cpuinfo.content, /^ {5}1\tName:/);
});

test("Read streams lines: a line longer than the cut costs no more than the cut, and line ends, the BOM and a last line without a newline come out right", async (t) => {
  const cwd = await tempWorkspace(t);
  const huge = "x".repeat(3_000_000);
  await fs.writeFile(path.join(cwd, "data.json"), `\ufeffhead\r\n${huge}\r\nafter\n\nend`);
  const all = await callTool(readTool, { file_path: "data.json" }, cwd);
  const lines = all.content.split("\n");
  assert.equal(lines[0], "     1\thead");
  assert.equal(lines[1], `     2\t${"x".repeat(2000)}… [line cut at 2000 characters]`);
  assert.deepEqual(lines.slice(2), ["     3\tafter", "     4\t", "     5\tend"]);
  const page = await callTool(readTool, { file_path: "data.json", offset: 3, limit: 1 }, cwd);
  assert.equal(page.content, "     3\tafter\n\n(More lines follow. Call Read with offset 4 to continue.)");

  // A line exactly at the cut, with a CRLF, is whole.
  await fs.writeFile(path.join(cwd, "edge.txt"), `${"y".repeat(2000)}\r\nz`);
  assert.equal((await callTool(readTool, { file_path: "edge.txt" }, cwd)).content, `     1\t${"y".repeat(2000)}\n     2\tz`);
  // Multi-byte characters split across the stream's chunks arrive whole.
  const accents = "é".repeat(40_000);
  await fs.writeFile(path.join(cwd, "accents.txt"), `${accents}\nok`);
  const read = await callTool(readTool, { file_path: "accents.txt" }, cwd);
  assert.equal(read.content.split("\n")[1], "     2\tok");
  assert.ok(!read.content.includes("\ufffd"));
});
