// The language servers of a conversation, by the extensions they handle. Nothing starts until a
// call names a file of a server's extensions; close() stops those that started.
import { extensionOf, type LspServerConfig } from "./config.ts";
import { LspServer, type LspServerPlace } from "./server.ts";

export type LspServers = {
  /** The server for `file`'s extension, started or not. */
  serverFor(file: string): LspServer | undefined;
  /** Every extension some server handles, sorted. */
  extensions(): string[];
  close(): Promise<void>;
};

export function lspServers(configs: readonly LspServerConfig[], place: LspServerPlace): LspServers {
  const servers = configs.map((config) => new LspServer(config, place));
  const byExtension = new Map<string, LspServer>();
  for (const server of servers) for (const extension of Object.keys(server.config.extensionToLanguage)) if (!byExtension.has(extension)) byExtension.set(extension, server);
  let closing: Promise<void> | undefined;
  return {
    serverFor: (file) => byExtension.get(extensionOf(file)),
    extensions: () => [...byExtension.keys()].sort(),
    close() {
      closing ??= Promise.all(servers.map((server) => server.stop().catch(() => {}))).then(() => {});
      return closing;
    },
  };
}
