// A model's name as Claude Code shows it to people ("Sonnet 4.5" for claude-sonnet-4-5-20250929),
// read from the id itself, whatever the provider's spelling (Bedrock's us.anthropic.…-v1:0,
// Vertex's …@date); an id that names no Claude model is shown as it is.

const NEW_STYLE = /claude-(opus|sonnet|haiku)-(\d+)(?:-(\d{1,2}))?(?![\d])/i;
const OLD_STYLE = /claude-(\d+)-(\d{1,2})-(opus|sonnet|haiku)(?![a-z])/i;

export function modelDisplayName(id: string): string {
  const modern = NEW_STYLE.exec(id);
  if (modern) return named(modern[1]!, modern[2]!, modern[3]);
  const older = OLD_STYLE.exec(id);
  if (older) return named(older[3]!, older[1]!, older[2]);
  return id;
}

function named(family: string, major: string, minor: string | undefined): string {
  return `${family[0]!.toUpperCase()}${family.slice(1).toLowerCase()} ${major}${minor === undefined ? "" : `.${minor}`}`;
}
