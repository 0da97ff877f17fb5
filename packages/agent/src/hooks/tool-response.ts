// What a PostToolUse hook is told a tool answered (`tool_response`), in the shapes Claude Code
// gives its hooks for the tools whose results hooks most often read: an object for a file the
// call wrote and for a command's output (`jq .tool_response.filePath`, `.tool_response.stdout`);
// the result's text for the others.

export function toolResponseFor(toolName: string, args: Record<string, unknown>, text: string): unknown {
  switch (toolName) {
    case "Write":
      return { filePath: args.file_path, content: args.content, success: true };
    case "Edit":
      return { filePath: args.file_path, oldString: args.old_string, newString: args.new_string, replaceAll: args.replace_all === true, success: true };
    case "MultiEdit":
      return { filePath: args.file_path, edits: args.edits, success: true };
    case "NotebookEdit":
      return { notebook_path: args.notebook_path, cell_id: args.cell_id, new_source: args.new_source, edit_mode: args.edit_mode ?? "replace", success: true };
    case "Bash":
      // The command's output comes as one stream, stdout and stderr in the order they were written.
      return { stdout: text, stderr: "", interrupted: false, isImage: false };
    default:
      return text;
  }
}
