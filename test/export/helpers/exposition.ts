/** A small parser of the Prometheus text format, enough to assert on series in tests. */

export interface Series {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Every sample line of an exposition. */
export function parseExposition(text: string): Series[] {
  const out: Series[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (m === null) throw new Error(`unparsable exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1] as string] = l[2] as string;
    out.push({ name: m[1] as string, labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the one series matching `name` and every label in `match`; throws unless exactly one matches. */
export function valueOf(series: readonly Series[], name: string, match: Record<string, string> = {}): number {
  const found = series.filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v));
  if (found.length !== 1) {
    throw new Error(`expected one ${name}${JSON.stringify(match)}, found ${found.length}`);
  }
  return (found[0] as Series).value;
}

/** Sum over the series matching `name` and `match`. */
export function sumOf(series: readonly Series[], name: string, match: Record<string, string> = {}): number {
  return series
    .filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v))
    .reduce((a, s) => a + s.value, 0);
}
