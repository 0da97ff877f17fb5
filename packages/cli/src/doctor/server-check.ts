// For `harness serve`: its data directory (writable, its database's format), its port (free, or
// held by a Harness server already), and its token settings, as the server itself reads them.
import { accessSync, constants, existsSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { dirname, join, resolve } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { FORMAT_VERSION, resolveConfig } from "@harness/server";
import { type Check, fail, ok, warn } from "./check.ts";
import type { DoctorContext } from "./context.ts";

const HEALTH_TIMEOUT_MS = 3_000;

export async function serverChecks(ctx: DoctorContext): Promise<Check[]> {
  let config: ReturnType<typeof resolveConfig>;
  try {
    // As `harness serve` started in the directory checked finds it; its log settings are checked apart.
    config = resolveConfig({ env: ctx.io.env, log: () => {}, dataDir: resolve(ctx.cwd, ctx.io.env.HARNESS_DATA_DIR?.trim() || ".harness") });
  } catch (error) {
    return [fail("server settings", error instanceof Error ? error.message : String(error), "mend the variable named for harness serve")];
  }
  const tokens = config.token !== undefined || config.userTokens.size > 0 ? "a token is required" : "no token (only this machine may connect)";
  return [ok("server settings", tokens), dataDirCheck(config.dataDir), await portCheck(config.host, config.port)];
}

function dataDirCheck(dir: string): Check {
  const name = "data directory";
  const remedy = `set HARNESS_DATA_DIR (or harness serve --data-dir) to a directory you can write`;
  if (!existsSync(dir)) {
    let parent = dirname(dir);
    while (!existsSync(parent) && dirname(parent) !== parent) parent = dirname(parent);
    return writable(parent) ? ok(name, `${dir} (made when the server starts)`) : fail(name, `${dir} cannot be made: ${parent} is not writable`, remedy);
  }
  if (!statSync(dir).isDirectory()) return fail(name, `${dir} is a file, not a directory`, remedy);
  const probe = join(dir, `.doctor-${process.pid}`);
  try {
    writeFileSync(probe, "");
    unlinkSync(probe);
  } catch (error) {
    return fail(name, `${dir} is not writable: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, remedy);
  }
  const db = join(dir, "harness.db");
  if (!existsSync(db)) return ok(name, `${dir} (no database yet)`);
  try {
    const file = new DatabaseSync(db, { readOnly: true });
    const found = (file.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
    file.close();
    return found > FORMAT_VERSION
      ? fail(name, `${db} is of format ${found}, written by a newer Harness (this one reads up to ${FORMAT_VERSION})`, "run that version or a later one, or give this one another data directory")
      : ok(name, `${dir}, database format ${Math.max(found, 1)}`);
  } catch (error) {
    return fail(name, `${db} cannot be read: ${error instanceof Error ? error.message : String(error)}`, "move the file away (the server then starts a new one), or restore it from a copy");
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

async function portCheck(host: string, port: number): Promise<Check> {
  const name = "port";
  if (port === 0) return ok(name, "any free port (PORT=0)");
  const open = await new Promise<boolean>((done) => {
    const socket = connect({ host, port }, () => {
      socket.destroy();
      done(true);
    });
    socket.on("error", () => done(false));
  });
  if (!open) return ok(name, `${host}:${port} is free`);
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}/healthz`;
  try {
    const answer = await fetch(url, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) });
    const body = (await answer.json()) as { ok?: unknown };
    if (typeof body === "object" && body !== null && "ok" in body) return warn(name, `${host}:${port} is taken by a Harness server already running`, "use that server (harness chat), or give this one another port (PORT or --port)");
  } catch {
    // Not a Harness server: said below.
  }
  return fail(name, `${host}:${port} is taken by another program`, "set PORT (or harness serve --port) to a free port");
}
