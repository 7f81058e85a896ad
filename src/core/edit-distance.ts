/**
 * Edit distance for did-you-mean on short names: flags, commands, metric keys, scenario fields.
 * Optimal string alignment: an insertion, a deletion, a substitution or a swap of two adjacent
 * letters each count 1, so `laod` is one edit from `load`, as a person sees it.
 */
export function editDistance(a: string, b: string): number {
  // Three rows: a swap looks two rows back.
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, (before[j - 2] as number) + 1);
      cur.push(d);
    }
    before = prev;
    prev = cur;
  }
  return prev[b.length] as number;
}

/**
 * The one of `names` closest to `typed` (case ignored), when near enough to be a typo: at most
 * a third of its length in edits (1 to 3). `undefined` when nothing is that near, so a guess is
 * never made out of thin air.
 */
export function closestName(typed: string, names: readonly string[]): string | undefined {
  const t = typed.toLowerCase();
  let best: string | undefined;
  let bestD = Infinity;
  for (const n of names) {
    const d = editDistance(t, n.toLowerCase());
    if (d < bestD) [best, bestD] = [n, d];
  }
  return best !== undefined && bestD <= Math.max(1, Math.min(3, Math.floor(typed.length / 3))) ? best : undefined;
}
