import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { createRunnerClient } from "@harness/runner/client";
import { nodeTransport } from "@harness/runner/node-transport";
import { spawnRunner } from "./runner-process.ts";
import { testDir } from "./test-helpers.ts";

/** Makes `runner-<pid>.sock` in `dir` from a process that is then killed, as a runner killed with
 * SIGKILL leaves its socket; returns its path. */
async function deadRunnersSocket(dir: string): Promise<string> {
  const child = spawn(process.execPath, ["-e", `require("net").createServer().listen(require("path").join(${JSON.stringify(dir)}, "runner-" + process.pid + ".sock"), () => process.kill(process.pid, "SIGKILL"))`]);
  await once(child, "exit");
  const path = join(dir, `runner-${child.pid}.sock`);
  assert.ok(statSync(path).isSocket(), "the killed process left its socket");
  return path;
}

test("a runner the server starts listens on a socket in its directory; sockets of runners that died are cleared away, nothing else", async (t) => {
  const dir = await testDir(t);
  const dead = await deadRunnersSocket(dir);
  // A live process's socket, and a file that only has a socket's name, stay.
  const live = createServer().listen(join(dir, `runner-${process.pid}.sock`));
  await once(live, "listening");
  t.after(() => live.close());
  writeFileSync(join(dir, "runner-1.sock"), "not a socket");

  const runner = await spawnRunner({ workspace: dir, env: { ...process.env }, logFile: join(dir, "runner-0.log"), socketDir: dir });
  t.after(() => runner.stop(1000));
  assert.equal(runner.url, `http+unix://${encodeURIComponent(join(dir, `runner-${runner.pid}.sock`))}`);
  assert.equal((await createRunnerClient(runner.url, { transport: nodeTransport(), token: runner.token }).health()).ok, true);

  assert.equal(existsSync(dead), false, "the dead runner's socket is removed");
  assert.ok(existsSync(join(dir, `runner-${process.pid}.sock`)));
  assert.ok(existsSync(join(dir, "runner-1.sock")));
});
