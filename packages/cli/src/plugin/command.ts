// `harness plugin …`: Claude Code's `claude plugin` commands, on the same files, so that a plugin
// installed by either tool is loaded by both.
import type { CliIO } from "../cli.ts";
import type { PluginCommand } from "./args.ts";
import { PluginError, pluginPlace } from "./files.ts";

export async function pluginCommand(command: PluginCommand, io: CliIO): Promise<number> {
  try {
    const place = await pluginPlace(io.cwd, io.env);
    switch (command.action) {
      case "marketplace-add":
        return await (await import("./marketplace-command.ts")).addMarketplace(command.source, place, io);
      case "marketplace-list":
        return (await import("./marketplace-command.ts")).listMarketplaces(place, io);
      case "marketplace-remove":
        return await (await import("./marketplace-command.ts")).removeMarketplace(command.name, place, io, command.keepData === true);
      case "marketplace-update":
        return await (await import("./marketplace-command.ts")).updateMarketplaces(command.name, place, io);
      case "install":
        return await (await import("./install.ts")).installPlugin(command.plugin, command.scope, place, io);
      case "uninstall":
        return await (await import("./manage.ts")).uninstallPlugin(command.plugin, command.scope, place, io, command.keepData === true);
      case "enable":
      case "disable":
        return await (await import("./manage.ts")).enablePlugin(command.plugin, command.action === "enable", command.scope, place, io);
      case "list":
        return (await import("./manage.ts")).listPlugins(place, io);
    }
  } catch (error) {
    if (!(error instanceof PluginError)) throw error;
    io.stderr.write(`harness: ${error.message}\n`);
    return 1;
  }
}
