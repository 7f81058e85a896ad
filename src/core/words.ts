/**
 * Words: the unit of prompt length. The interface has no tokenizer, so the client (prompt
 * length bands) and the reference service (prompt tokens, prefill time) count the same way.
 */

/** Runs of non-whitespace characters in `text` (ASCII whitespace and no-break space separate). */
export function countWords(text: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const space = c === 32 || (c >= 9 && c <= 13) || c === 160;
    if (!space && !inWord) n++;
    inWord = !space;
  }
  return n;
}
