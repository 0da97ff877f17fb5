/** A problem found in a user's file: "<file> (<key>): <message>". */
export function describeDiagnostic(d: { file: string; key?: string; message: string }): string {
  return `${d.file}${d.key === undefined ? "" : ` (${d.key})`}: ${d.message}`;
}
