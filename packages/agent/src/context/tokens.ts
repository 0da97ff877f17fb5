/** A rough token count: one token per four characters, rounded up. Claude's tokenizer averages
 * about 3.5–4 characters per token on English and code, so this tends to undercount slightly; it
 * is for reporting sizes and budgeting, never for enforcing a model limit exactly. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
