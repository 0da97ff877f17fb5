import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { availableParallelism, getPriority } from "node:os";
import { processAlive, waitFor } from "@harness/test-utils";
import { spawnViaHelper } from "./spawn-helper.ts";

test("commands run from the helper process, not from this one, with their output and exit status", async () => {
  const done = await spawnViaHelper({ command: "/bin/sh", args: ["-c", 'echo "$PPID"; echo oops >&2; exit 3'], env: { PATH: process.env.PATH } });
  assert.equal(done.code, 3);
  assert.equal(done.stderr.toString(), "oops\n");
  const parent = Number(done.stdout.toString());
  assert.ok(parent > 0 && parent !== process.pid, `the command's parent was ${parent}`);
  const again = await spawnViaHelper({ command: "/bin/sh", args: ["-c", 'echo "$PPID"'], env: {} });
  assert.equal(Number(again.stdout.toString()), parent, "one helper serves every command");
  await assert.rejects(spawnViaHelper({ command: "/no/such/command", args: [], env: {} }), /ENOENT/);
});

test("the helper exits with the process that started it", async () => {
  const script = `
    import { spawnViaHelper } from ${JSON.stringify(new URL("./spawn-helper.ts", import.meta.url).href)};
    const done = await spawnViaHelper({ command: "/bin/sh", args: ["-c", 'echo "$PPID"'], env: {} });
    process.stdout.write(done.stdout.toString());
    setTimeout(() => {}, 60_000);`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (chunk) => (out += chunk));
  const helper = await waitFor(() => (/^\d+\n/.test(out) ? Number(out) : undefined), "the helper's pid", { timeoutMs: 10_000 });
  assert.ok(processAlive(helper));
  child.kill("SIGKILL");
  await waitFor(() => !processAlive(helper), "the helper to exit", { timeoutMs: 10_000 });
});

test("commands run at a lower CPU priority than this process, at most one per core at a time", async () => {
  const nice = await spawnViaHelper({ command: "/bin/sh", args: ["-c", "cut -d' ' -f19 /proc/self/stat"], env: {} });
  assert.equal(Number(nice.stdout.toString()), Math.min(19, getPriority() + 10));

  const jobs = availableParallelism() + 3;
  const spans = await Promise.all(
    Array.from({ length: jobs }, () => spawnViaHelper({ command: "/bin/sh", args: ["-c", "date +%s%N; sleep 0.2; date +%s%N"], env: { PATH: process.env.PATH } })),
  );
  const times = spans.map((done) => done.stdout.toString().trim().split("\n").map(BigInt));
  const most = Math.max(...times.map(([start]) => times.filter(([from, to]) => from <= start && start < to).length));
  assert.equal(times.length, jobs, "every job ran");
  assert.ok(most <= availableParallelism(), `${most} commands ran at once`);
});
