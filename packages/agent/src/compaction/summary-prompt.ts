// The texts of a compaction: the request for the summary, and the message that replaces the
// summarized part of the conversation.

export const SUMMARY_SYSTEM_PROMPT =
  "You summarize conversations between a user and an AI coding agent, so that the agent can continue the work from your summary alone. You are precise and complete: you keep file paths, names, commands, code and decisions exactly as they were.";

export function summaryRequest(conversation: string, instructions: string | undefined): string {
  const extra = instructions?.trim() ? `\n\nThe user gave these instructions for this summary; follow them:\n${instructions.trim()}` : "";
  return `Below, inside <conversation> tags, is the earlier part of a conversation between a user and a coding agent. It is about to be removed from the agent's context and replaced by your summary, and the agent must be able to continue its work from the summary alone. Write a detailed summary: keep technical details, file paths, code, commands and decisions, not a vague overview.

<conversation>
${conversation}
</conversation>

Write the summary with these sections:
1. Goals: everything the user asked for, in detail, with the requirements and constraints they stated along the way.
2. Decisions: the approaches and technical choices made (and those rejected, with why), and the conventions to follow.
3. Files: every file read, created or changed, with why it matters and what was changed; include the code snippets that will be needed again.
4. Errors and fixes: the problems met and how they were solved, and any feedback from the user about doing things differently.
5. User messages: every message the user wrote (not tool results), in order, briefly.
6. Current state: exactly what was being worked on at the end of this part, with file names and code where relevant; what is finished and what is not.
7. Next steps: what remains to be done, in order. Only list steps that follow from the user's requests; quote the latest request word for word where it defines the next step.${extra}

Reply with the summary only, inside <summary></summary> tags.`;
}

/** The summary as the model replied it: the inside of its <summary> tags when there are any. */
export function extractSummary(reply: string): string {
  const withoutAnalysis = reply.replace(/<analysis>[\s\S]*?<\/analysis>/g, "");
  const open = withoutAnalysis.indexOf("<summary>");
  if (open === -1) return withoutAnalysis.trim();
  const rest = withoutAnalysis.slice(open + "<summary>".length);
  const close = rest.indexOf("</summary>");
  return (close === -1 ? rest : rest.slice(0, close)).trim();
}

/** The text that stands in for the summarized messages in the model's context. */
/** `todos`: the task list as TodoWrite left it, given back after the summary (as Claude Code does),
 * so that a task in progress goes on from the same list. */
export function continuationText(summary: string, keptRecent: boolean, todos: readonly { content: string; status: string }[] = []): string {
  const list = todos.length === 0 ? "" : `\n\nThe task list (TodoWrite) as it stands:\n${todos.map((todo) => `- [${todo.status}] ${todo.content}`).join("\n")}`;
  const intro = keptRecent
    ? "This session is being continued from a previous conversation that ran out of context. The earlier part of the conversation is summarized below; the messages after this summary are the most recent part of it, kept word for word."
    : "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below.";
  return `${intro}

<summary>
${summary}
</summary>${list}

Continue from where the conversation left off without asking the user to repeat anything: if a task was in progress, carry on with it.`;
}
