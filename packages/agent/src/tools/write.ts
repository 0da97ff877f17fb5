import fs from "node:fs/promises";
import { z } from "zod";
import { defineTool } from "../define-tool.ts";
import { refuseWrite, withFileLock, writeTracked } from "./file-state.ts";
import { displayPath, errorCode, errorText, resolvePath, specialFileProblem } from "./paths.ts";

const description = `Writes a file to the local filesystem, replacing it if it already exists.

Usage:
- file_path may be absolute or relative to the shell's current directory (where Bash's \`cd\` left it; at first the project's directory). Missing parent directories are created.
- content is the complete new content of the file.
- Overwriting replaces everything in the file: for a change to part of an existing file, use Edit instead, which is safer and cheaper. An existing file must be Read first; overwriting one that was not read, or that changed on disk since it was read, is refused.
- Prefer editing existing files to creating new ones. Do not create documentation or README files unless the user asked for them.`;

export const writeTool = defineTool({
  name: "Write",
  description,
  parameters: z.strictObject({
    file_path: z.string().min(1).describe("The path of the file to write, absolute or relative to the shell's current directory"),
    content: z.string().describe("The full content to write to the file"),
  }),
  precheck: ({ file_path }, { cwd, state }) => refuseWrite(state, resolvePath(cwd, file_path)),
  async execute({ file_path, content }, { cwd, state }) {
    const target = resolvePath(cwd, file_path);
    const shown = displayPath(cwd, target);
    if (file_path.endsWith("/")) return { content: `${file_path} ends with a slash, so it names a directory; give the path of a file to write.`, isError: true };
    return withFileLock(state, target, async () => {
      let existed = false;
      try {
        const stat = await fs.stat(target);
        if (stat.isDirectory()) return { content: `${shown} is a directory; give the path of a file to write.`, isError: true };
        const special = specialFileProblem(stat, shown);
        if (special) return { content: special, isError: true };
        existed = true;
      } catch (error) {
        if (errorCode(error) !== "ENOENT") return { content: `Cannot write ${shown}: ${errorText(error)}`, isError: true };
      }
      const refusal = existed ? await refuseWrite(state, target) : undefined;
      if (refusal) return { content: refusal, isError: true };
      try {
        await writeTracked(state, target, content);
      } catch (error) {
        return { content: `Cannot write ${shown}: ${errorText(error)}`, isError: true };
      }
      const lines = content === "" ? 0 : content.split("\n").length - (content.endsWith("\n") ? 1 : 0);
      const size = `${lines} line${lines === 1 ? "" : "s"}`;
      return { content: existed ? `Overwrote ${shown} (${size}).` : `Created ${shown} (${size}).` };
    });
  },
});
