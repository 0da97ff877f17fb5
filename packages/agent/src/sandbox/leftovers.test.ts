import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeDeadSandboxSockets } from "./leftovers.ts";

/** A socket file at `path` that nothing listens on any more, as a killed process leaves one. */
async function deadSocket(path: string): Promise<void> {
  const child = spawn(process.execPath, ["-e", `require("net").createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, "SIGKILL"))`]);
  await once(child, "exit");
  assert.ok(existsSync(path));
}

test("the sandbox's socket files of killed processes are removed; live ones, and other files, stay", { skip: process.platform !== "linux" && "reads /proc" }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "sandbox-leftovers-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const live = createServer().listen(join(dir, "claude-http-00aa.sock"));
  await once(live, "listening");
  t.after(() => live.close());
  const liveMux = createServer().listen(join(dir, `srt-mux-${process.pid}-0.sock`));
  await once(liveMux, "listening");
  t.after(() => liveMux.close());
  await deadSocket(join(dir, "claude-http-11bb.sock"));
  await deadSocket(join(dir, "claude-socks-11bb.sock"));
  const dead = spawn("true");
  await once(dead, "exit");
  await deadSocket(join(dir, `srt-mux-${dead.pid}-1.sock`));
  writeFileSync(join(dir, "claude-http-22cc.sock"), "not a socket");
  await deadSocket(join(dir, "someone-else.sock"));

  removeDeadSandboxSockets(dir);

  assert.ok(existsSync(join(dir, "claude-http-00aa.sock")));
  assert.ok(existsSync(join(dir, `srt-mux-${process.pid}-0.sock`)));
  assert.equal(existsSync(join(dir, "claude-http-11bb.sock")), false);
  assert.equal(existsSync(join(dir, "claude-socks-11bb.sock")), false);
  assert.equal(existsSync(join(dir, `srt-mux-${dead.pid}-1.sock`)), false);
  assert.ok(existsSync(join(dir, "claude-http-22cc.sock")));
  assert.ok(existsSync(join(dir, "someone-else.sock")));
});
