// A paste that is the path of one image file, as terminals paste a file dragged onto them: the path
// as it is, quoted ('…' or "…", a quote inside single quotes as '\''), with backslash escapes
// (`my\ shot.png`), or as a file:// URL. The chat attaches such a file as it attaches one pasted with
// Ctrl+V (images.ts); anything else pasted stays text.
import { statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The extensions of the images the agent reads (its Read tool's). */
export const IMAGE_EXTENSIONS = [".png", ".jpg", ".jpeg", ".gif", ".webp"];

/** The absolute path `text` (a whole paste) names, when it names one existing image file; `home`
 * stands for `~`. A relative path is left as text: `@path` names the project's files. */
export function pastedImagePath(text: string, home: string): string | undefined {
  const word = oneWord(text.trim());
  if (word === undefined) return undefined;
  let file = word;
  if (/^file:\/\//i.test(word)) {
    try {
      file = fileURLToPath(word);
    } catch {
      return undefined;
    }
  } else if (word === "~" || word.startsWith("~/")) file = join(home, word.slice(1));
  if (!isAbsolute(file) || !IMAGE_EXTENSIONS.some((ext) => file.toLowerCase().endsWith(ext))) return undefined;
  try {
    return statSync(file).isFile() ? file : undefined;
  } catch {
    return undefined;
  }
}

/** `text` read as one shell word (quotes and backslash escapes taken off), or undefined when it is
 * several, or has a quote left open, or a line break. */
function oneWord(text: string): string | undefined {
  if (!text || /[\r\n]/.test(text)) return undefined;
  let word = "";
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quote) {
      if (char === quote) quote = undefined;
      else if (quote === '"' && char === "\\" && /["\\$`]/.test(text[i + 1] ?? "")) word += text[++i];
      else word += char;
    } else if (char === "'" || char === '"') quote = char;
    else if (char === "\\" && i + 1 < text.length) word += text[++i];
    else if (/\s/.test(char)) return undefined;
    else word += char;
  }
  return quote ? undefined : word;
}
