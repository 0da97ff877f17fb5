import { fileURLToPath } from "node:url";

export type FakeLspOptions = {
  /** Appends a JSON line per message the server gets to this file. */
  log?: string;
  /** Exits with code 3 (and a line on stderr) on this request. */
  crashOn?: string;
  /** Exits with code 2 (and a line on stderr) instead of answering initialize. */
  failStart?: boolean;
  /** Never answers initialize. */
  hangStart?: boolean;
  /** The extensions it indexes (default .ts and .js). */
  extensions?: string[];
};

/** How to start the fake language server (fake-lsp-server.ts): the command and args of an
 * `lspServers` entry. */
export function fakeLspServerCommand(options: FakeLspOptions = {}): { command: string; args: string[] } {
  const args = [fileURLToPath(new URL("./fake-lsp-server.ts", import.meta.url))];
  if (options.log) args.push("--log", options.log);
  if (options.crashOn) args.push("--crash-on", options.crashOn);
  if (options.failStart) args.push("--fail-start");
  if (options.hangStart) args.push("--hang-start");
  if (options.extensions) args.push("--ext", options.extensions.join(","));
  return { command: process.execPath, args };
}
