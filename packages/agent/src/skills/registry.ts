import type { Skill } from "./types.ts";

/** The most of a description the listing shows (the Agent Skills format's limit for it): the
 * listing goes with every model request, and one oversized file must not crowd out the rest of the
 * context, or make every request too large to be taken. */
export const MAX_LISTED_DESCRIPTION = 1024;

/** The skills the model may invoke, for the system prompt: one `- name: description` line each,
 * under a short note on using the Skill tool; "" when there are none. Skills marked
 * disable-model-invocation are left out (only the user can run them, with /name). */
export function skillsRegistry(skills: readonly Skill[]): string {
  const listed = skills.filter((skill) => !skill.disableModelInvocation);
  if (listed.length === 0) return "";
  const lines = listed.map((skill) => `- ${skill.name}: ${listedDescription(skill.description)}`);
  return [
    "The following skills are available through the Skill tool. When a task matches a skill's description, invoke that skill with the Skill tool before doing anything else for the task; it holds instructions and files written for exactly that kind of work.",
    "<available-skills>",
    ...lines,
    "</available-skills>",
  ].join("\n");
}

function listedDescription(description: string): string {
  const text = description.replace(/\s+/g, " ").trim();
  return text.length > MAX_LISTED_DESCRIPTION ? `${text.slice(0, MAX_LISTED_DESCRIPTION - 1)}…` : text;
}
