import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { forgetGroup, groupAlive, signalGroup, spawnGroup, trackedGroups } from "./process-groups.ts";
import { processGone, tempWorkspace, waitFor } from "../testing/fixtures.ts";

const here = path.dirname(new URL(import.meta.url).pathname);
const url = (file: string) => pathToFileURL(path.join(here, file)).href;

// A process that runs commands with the real tools, leaves some running, and is then SIGKILLed:
// nothing it started may outlive it.
const VICTIM = `
import { bashTool } from ${JSON.stringify(url("../tools/shell/bash.ts"))};
import { createToolState } from ${JSON.stringify(url("../tools/state.ts"))};
import { callWithState } from ${JSON.stringify(url("../tools/test-helpers.ts"))};
const cwd = process.argv[2];
const state = createToolState();
const foreground = callWithState(bashTool, { command: "sleep 300 & echo $! > stray.pid" }, cwd, state);
const background = callWithState(bashTool, { command: "echo $$ > shell.pid; sleep 301", run_in_background: true }, cwd, state);
const running = callWithState(bashTool, { command: "echo $$ > running.pid; sleep 302" }, cwd, state);
await Promise.all([foreground, background]);
process.stdout.write("ready\\n");
await running;
`;

async function pidFrom(file: string): Promise<number> {
  return waitFor(async () => {
    const text = await fs.readFile(file, "utf8").catch(() => "");
    return text.endsWith("\n") ? Number(text) : undefined;
  }, `a pid in ${path.basename(file)}`);
}

test("commands a process started, finished or not, end when it is killed with SIGKILL", async (t) => {
  const cwd = await tempWorkspace(t);
  const script = path.join(cwd, "victim.ts");
  await fs.writeFile(script, VICTIM);
  const victim = spawn(process.execPath, [script, cwd], { stdio: ["ignore", "pipe", "inherit"] });
  t.after(() => victim.kill("SIGKILL"));
  await new Promise<void>((resolve, reject) => {
    victim.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve());
    victim.once("exit", (code) => reject(new Error(`the process exited early (${code})`)));
  });
  const pids = await Promise.all(["stray.pid", "shell.pid", "running.pid"].map((file) => pidFrom(path.join(cwd, file))));
  t.after(() => pids.forEach((pid) => signalGroup(pid, "SIGKILL")));
  for (const pid of pids) assert.equal(await processGone(pid), false, `${pid} runs before the kill`);

  victim.kill("SIGKILL");
  for (const pid of pids) await waitFor(async () => ((await processGone(pid)) ? true : undefined), `process ${pid} to end`, 10_000);
});

test("a group is tracked while it runs and forgotten once killed", async (t) => {
  const cwd = await tempWorkspace(t);
  const child = spawnGroup("sleep 30", { cwd });
  const pid = child.pid!;
  t.after(() => signalGroup(pid, "SIGKILL"));
  assert.ok(trackedGroups().has(pid));
  assert.equal(groupAlive(pid), true);
  signalGroup(pid, "SIGKILL");
  assert.equal(trackedGroups().has(pid), false);
  await new Promise((resolve) => child.once("exit", resolve));
  assert.equal(groupAlive(pid), false);
  forgetGroup(pid);
});
