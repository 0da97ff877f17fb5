// `harness serve`: the Harness server in the foreground until SIGINT or SIGTERM.
import os from "node:os";
import { parsePort, type Command } from "./args.ts";
import type { Sink } from "./render.ts";

export type ServeCommand = Extract<Command, { kind: "serve" }>;

export async function serveCommand(command: ServeCommand, io: { stderr: Sink; env: NodeJS.ProcessEnv }): Promise<number> {
  const { env } = io;
  let port = command.port;
  if (port === undefined && env.PORT) {
    const parsed = parsePort("PORT", env.PORT);
    if (typeof parsed === "string") {
      io.stderr.write(`harness: ${parsed}\n`);
      return 2;
    }
    port = parsed;
  }
  if (!env.ANTHROPIC_API_KEY) io.stderr.write("harness: warning: ANTHROPIC_API_KEY is not set; runs will fail until it is\n");

  const { startServer } = await import("@harness/server");
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer({
      host: command.host ?? (env.HARNESS_HOST || "127.0.0.1"),
      port: port ?? 7700,
      dataDir: command.dataDir ?? (env.HARNESS_DATA_DIR || "./.harness"),
      token: env.HARNESS_TOKEN || undefined,
    });
  } catch (err) {
    io.stderr.write(`harness: cannot start the server: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }

  // SIGHUP too: a closed terminal shuts the server down cleanly (runs written down, runners
  // stopped) rather than killing it.
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    for (const name of signals) process.once(name, resolve);
  });
  // A second signal while closing stops at once.
  const force = (again: NodeJS.Signals) => process.exit(128 + os.constants.signals[again]);
  for (const name of signals) process.once(name, force);
  io.stderr.write(`harness: ${signal === "SIGINT" ? "interrupted" : signal === "SIGHUP" ? "hung up" : "terminated"}, shutting down\n`);
  await server.close();
  return 0;
}
