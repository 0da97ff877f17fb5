// Process entry of the `harness` command (see bin/harness).
import { runCli } from "./cli.ts";

try {
  const status = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() });
  // Exit now rather than wait for idle keep-alive sockets or timers; stdout and stderr writes are
  // synchronous for files, pipes and terminals on POSIX.
  process.exit(status);
} catch (err) {
  process.stderr.write(`harness: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
