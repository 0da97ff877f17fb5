export { discoverSkills } from "./discover.ts";
export type { DiscoverSkillsOptions } from "./discover.ts";
export { skillsRegistry } from "./registry.ts";
export { SKILL_TOOL_NAME, skillPrompt, skillTool } from "./skill-tool.ts";
export { argumentNamesField, parseArguments, substituteArguments } from "./arguments.ts";
export type { SubstituteOptions } from "./arguments.ts";
export { parseFrontmatter } from "../frontmatter.ts";
export type { Frontmatter } from "../frontmatter.ts";
export type { Skill, SkillDiagnostic, SkillDiscovery, SkillScope } from "./types.ts";
