import { z } from "zod";
import { defineTool } from "../../define-tool.ts";
import { killShell } from "./background-shells.ts";
import { unknownShell } from "./bash-output.ts";

const description = `Stops a background shell started by Bash with run_in_background, with every process it started.

Usage:
- shell_id is the ID the Bash call returned.
- Use it to stop servers and watchers you no longer need. Its remaining output can still be read with BashOutput.`;

export const killShellTool = defineTool({
  name: "KillShell",
  description,
  parameters: z.strictObject({
    shell_id: z.string().min(1).describe("The ID of the background shell to stop"),
  }),
  async execute({ shell_id }, { state }) {
    const shell = state?.shells.get(shell_id);
    if (!shell) return { content: unknownShell(shell_id, state), isError: true };
    const killed = killShell(shell);
    const exit = shell.exitCode !== null ? `, exit code ${shell.exitCode}` : "";
    if (!killed) return { content: `Shell ${shell_id} is not running (status: ${shell.status}${exit}), so there is nothing to kill.`, isError: true };
    if (killed === "leftovers") return { content: `Shell ${shell_id} had ended (status: ${shell.status}${exit}), but processes it started were still running; they were stopped. (${shell.command})` };
    return { content: `Successfully killed shell: ${shell_id} (${shell.command})` };
  },
});
