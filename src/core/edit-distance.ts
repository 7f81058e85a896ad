/**
 * Edit distance for did-you-mean on short names: flags, commands, metric keys, scenario fields.
 * Optimal string alignment: an insertion, a deletion, a substitution or a swap of two adjacent
 * letters each count 1, so `laod` is one edit from `load`, as a person sees it.
 */

/**
 * The edit distance of `a` and `b` when it is at most `max`, else `max + 1`, in time proportional to the
 * shorter length times `max`: only the band of the table within `max` of its diagonal is
 * filled, and the walk stops once a whole row is past `max`. For did-you-mean over many typed
 * names (100,000 threshold keys), where the full table per pair would take minutes.
 */
export function editDistanceWithin(a: string, b: string, max: number): number {
  const over = max + 1;
  if (Math.abs(a.length - b.length) > max) return over;
  // Three rows reused in turn (a swap looks two rows back); cells outside the band read as `over`.
  if (rows[0].length < b.length + 2) rows = [0, 1, 2].map(() => new Int32Array(b.length + 2)) as [Int32Array, Int32Array, Int32Array];
  let [before, prev, cur] = rows;
  for (let j = 0; j < b.length + 2; j++) {
    prev[j] = j <= max ? j : over;
    before[j] = over;
  }
  for (let i = 1; i <= a.length; i++) {
    const lo = Math.max(1, i - max);
    const hi = Math.min(b.length, i + max);
    cur[0] = i <= max ? i : over;
    cur[lo - 1] = lo === 1 ? (cur[0] as number) : over;
    let rowMin = lo === 1 ? (cur[0] as number) : over;
    for (let j = lo; j <= hi; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let d = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1)) d = Math.min(d, (before[j - 2] as number) + 1);
      cur[j] = Math.min(d, over);
      if (d < rowMin) rowMin = d;
    }
    cur[hi + 1] = over;
    if (rowMin > max) return over;
    [before, prev, cur] = [prev, cur, before];
  }
  return Math.min(prev[b.length] as number, over);
}

/** The rows `editDistanceWithin` fills, kept between calls: did-you-mean over many names allocates nothing per pair. */
let rows: [Int32Array, Int32Array, Int32Array] = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];

/**
 * The one of `names` closest to `typed` (case ignored), when near enough to be a typo: at most
 * a third of its length in edits (1 to 3). `undefined` when nothing is that near, so a guess is
 * never made out of thin air.
 */
export function closestName(typed: string, names: readonly string[]): string | undefined {
  const t = typed.toLowerCase();
  const near = Math.max(1, Math.min(3, Math.floor(typed.length / 3)));
  let best: string | undefined;
  let bestD = near + 1;
  for (const n of names) {
    const d = editDistanceWithin(t, n.toLowerCase(), near);
    if (d < bestD) [best, bestD] = [n, d];
  }
  return best;
}
