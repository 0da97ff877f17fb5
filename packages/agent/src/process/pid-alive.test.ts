// Whether a process runs, as the server asks it of runners it adopted and of a data directory's
// holder.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { pidAlive } from "./pid-alive.ts";

test("a running process is alive; one that ended is not, nor a zombie its parent never reaps", async (t) => {
  assert.equal(pidAlive(process.pid), true);
  // `sleep 0.05` ends at once; its parent, now `sleep 30`, never waits for it: a zombie.
  const parent = spawn("sh", ["-c", "sleep 0.05 & echo $!; exec sleep 30"], { stdio: ["ignore", "pipe", "ignore"] });
  t.after(() => parent.kill("SIGKILL"));
  const [line] = (await once(parent.stdout!, "data")) as [Buffer];
  const zombie = Number(line.toString().trim());
  for (let i = 0; i < 100 && pidAlive(zombie); i++) await delay(20);
  assert.equal(pidAlive(zombie), false, "a zombie is not alive");
  assert.equal(pidAlive(parent.pid!), true);
  parent.kill("SIGKILL");
  await once(parent, "exit");
  assert.equal(pidAlive(parent.pid!), false);
});
