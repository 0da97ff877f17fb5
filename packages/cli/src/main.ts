// The `harness` command (started through bin/harness.mjs, which turns the compile cache on before
// any TypeScript loads). Run directly as `node main.ts`, it turns the cache on itself, as early as
// it can: everything else is imported after, so later starts load it precompiled.
import { enableCompileCache } from "node:module";

enableCompileCache?.();
const { runCli } = await import("./cli.ts");
let status: number;
try {
  status = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), stdin: process.stdin });
} catch (err) {
  process.stderr.write(`harness: ${err instanceof Error ? err.message : String(err)}\n`);
  status = 1;
}
// Exit once the output is flushed rather than wait for idle keep-alive sockets or timers. A stream
// nobody reads any more (a closed pipe, `2>&-`) has nothing left to flush: its error is no crash.
await Promise.all(
  [process.stdout, process.stderr].map((s) => {
    s.on("error", () => {});
    return new Promise((resolve) => s.write("", resolve));
  }),
);
process.exit(status);
