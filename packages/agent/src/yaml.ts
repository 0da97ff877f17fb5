// YAML parsing for frontmatter, with the parser loaded on first use: most runs read no file with
// frontmatter. yaml is CommonJS under Node, so require() yields the very module `import` would.
import { createRequire } from "node:module";

type Yaml = typeof import("yaml");
let yaml: Yaml | undefined;

/** yaml's `parse`: throws what it throws. */
export function parseYaml(text: string): unknown {
  yaml ??= createRequire(import.meta.url)("yaml") as Yaml;
  return yaml.parse(text);
}
