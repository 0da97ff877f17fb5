// `npm start -- --project DIR --data-dir DIR` from a directory other than the repository's root:
// npm runs the script in the root, yet the relative paths are the user's, taken from where npm was
// typed (INIT_CWD), as `harness serve` takes them from where it is typed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { root, tempDir } from "../test-support.ts";

test("npm start takes the relative paths of serve's flags from the directory it was typed in", async (t) => {
  const dir = tempDir(t);
  const here = join(dir, "here");
  mkdirSync(join(here, "proj"), { recursive: true });
  // --prefix: npm runs the repository's start script in its root, as from a directory inside it.
  const child = spawn("npm", ["--prefix", root, "start", "--", "--port", "0", "--data-dir", "data", "--project", "proj"], {
    cwd: here,
    env: { ...process.env, HOME: join(dir, "home"), ANTHROPIC_API_KEY: "x", HARNESS_DATA_DIR: "", HARNESS_TOKEN: "", npm_config_update_notifier: "false" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  t.after(() => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // Already gone.
    }
  });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (output += text));
  child.stderr.setEncoding("utf8").on("data", (text: string) => (output += text));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const started = await Promise.race([
    (async () => {
      while (!/sessions work in the project|cannot start/.test(output)) await new Promise((resolve) => setTimeout(resolve, 50));
      return true;
    })(),
    exited.then(() => false),
  ]);
  assert.ok(started, output);
  assert.match(output, new RegExp(`sessions work in the project ${realpathSync(join(here, "proj")).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}, all of them on its files`), output);
  assert.ok(existsSync(join(here, "data", "harness.db")), `no data directory under ${here}:\n${output}`);
  assert.ok(!existsSync(join(root, "data")) && !existsSync(join(root, "proj")), "nothing made in the repository's root");
  process.kill(-child.pid!, "SIGTERM");
  await exited;
});
