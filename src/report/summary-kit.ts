/** The console summary's building block shared by its sections: columns aligned as a grid. */

/** Visible width, ignoring ANSI sequences. */
const width = (s: string): number => s.replace(/\x1b\[[0-9;]*m/g, '').length;

/** Aligns columns: the first left, the rest right (numbers). */
export function grid(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, width(c))));
  return rows.map((r) =>
    r
      .map((c, i) => {
        const pad = ' '.repeat((widths[i] ?? 0) - width(c));
        return i === 0 ? c + pad : pad + c;
      })
      .join('  ')
      .trimEnd(),
  );
}
