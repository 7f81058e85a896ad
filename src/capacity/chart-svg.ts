/**
 * One chart of capacity.html as inline SVG (no script): a bar per step on the left axis (a
 * throughput), lines on the right axis (latencies in ms), an objective as a dashed line, and a
 * legend naming every series drawn. Pure: returns markup built from escaped text.
 */
import { escapeHtml } from '../core/html-escape.js';

/** A line across the steps; null where the step measured nothing. */
export interface SvgLine {
  readonly label: string;
  readonly values: readonly (number | null)[];
  readonly color: string;
  readonly dash?: boolean;
}

/** What one chart draws, one x position per step. */
export interface SvgChartSpec {
  /** The label under each step (its concurrency). */
  readonly x: readonly string[];
  /** Bars on the left axis; none for a chart of lines only. */
  readonly bars?: {
    readonly label: string;
    readonly unit: string;
    readonly values: readonly number[];
    /** Whether each step met the objectives (filled) or not (grey). */
    readonly meets: readonly boolean[];
    /** A tooltip per bar. */
    readonly titles: readonly string[];
  };
  readonly lines: readonly SvgLine[];
  /** The lines' objective, in ms, drawn dashed on their axis. */
  readonly objective?: { readonly value: number; readonly label: string } | undefined;
  readonly xLabel: string;
}

const W = 720;
const H = 340;
const PAD = { l: 84, r: 64, t: 44, b: 40 };
const f1 = (v: number): string => v.toFixed(1);
const e = escapeHtml;

/** Renders the chart. */
export function renderSvgChart(spec: SvgChartSpec): string {
  const n = spec.x.length;
  const iw = W - PAD.l - PAD.r;
  const ih = H - PAD.t - PAD.b;
  const bw = n > 0 ? iw / n : iw;
  const cx = (i: number): number => PAD.l + i * bw + bw / 2;
  const bars = spec.bars;
  const maxBar = Math.max(1, ...(bars?.values ?? []));
  const lineValues = spec.lines.flatMap((l) => l.values.filter((v): v is number => v !== null));
  const maxLine = Math.max(1, ...lineValues, (spec.objective?.value ?? 0) * 1.2);
  const yBar = (v: number): number => PAD.t + ih - (v / maxBar) * ih;
  const yLine = (v: number): number => PAD.t + ih - (v / maxLine) * ih;
  const out: string[] = [`<line x1="${PAD.l}" y1="${PAD.t + ih}" x2="${W - PAD.r}" y2="${PAD.t + ih}" stroke="#333"/>`];
  spec.x.forEach((x, i) => {
    out.push(`<text x="${f1(cx(i))}" y="${H - PAD.b + 16}" text-anchor="middle" font-size="11">${e(x)}</text>`);
    const v = bars?.values[i];
    if (bars === undefined || v === undefined) return;
    const y = yBar(v);
    out.push(
      `<rect x="${f1(PAD.l + i * bw + bw * 0.15)}" y="${f1(y)}" width="${f1(bw * 0.7)}" height="${f1(PAD.t + ih - y)}" fill="${bars.meets[i] === true ? '#2f7ed8' : '#c8c8c8'}"><title>${e(bars.titles[i] ?? '')}</title></rect>`,
    );
  });
  for (const l of spec.lines) {
    // A step without a value breaks the line rather than drawing it at zero.
    let run: string[] = [];
    const flush = (): void => {
      if (run.length > 1) out.push(`<polyline points="${run.join(' ')}" fill="none" stroke="${l.color}" stroke-width="2"${l.dash === true ? ' stroke-dasharray="6 3"' : ''}/>`);
      run = [];
    };
    l.values.forEach((v, i) => {
      if (v === null) return flush();
      run.push(`${f1(cx(i))},${f1(yLine(v))}`);
      out.push(`<circle cx="${f1(cx(i))}" cy="${f1(yLine(v))}" r="3" fill="${l.color}"><title>${e(`${l.label} at ${spec.x[i] ?? ''}: ${v.toFixed(1)} ms`)}</title></circle>`);
    });
    flush();
  }
  if (spec.objective !== undefined) {
    const y = f1(yLine(spec.objective.value));
    out.push(
      `<line x1="${PAD.l}" y1="${y}" x2="${W - PAD.r}" y2="${y}" stroke="#d83f2f" stroke-dasharray="4 4"/>`,
      // Above the line, inside the plot: a label past the right edge would be cut.
      `<text x="${W - PAD.r - 4}" y="${f1(Number(y) - 4)}" text-anchor="end" font-size="11" fill="#d83f2f" stroke="#fff" stroke-width="3" paint-order="stroke">${e(`objective: ${spec.objective.label}`)}</text>`,
    );
  }
  if (bars !== undefined) out.push(`<text x="${PAD.l - 8}" y="${PAD.t + 10}" text-anchor="end" font-size="11">${e(`${maxBar.toFixed(0)}${bars.unit}`)}</text>`);
  out.push(
    `<text x="${PAD.l - 8}" y="${PAD.t + ih}" text-anchor="end" font-size="11">0</text>`,
    `<text x="${W - PAD.r + 4}" y="${PAD.t + 10}" font-size="11">${e(`${maxLine.toFixed(0)} ms`)}</text>`,
    `<text x="${PAD.l + iw / 2}" y="${H - 4}" text-anchor="middle" font-size="12">${e(spec.xLabel)}</text>`,
  );
  // The legend names what is drawn, each with its swatch: no entry waits for a value.
  const legend: [string, string, boolean, number][] = [
    ...(bars === undefined ? [] : [[bars.label, '#2f7ed8', false, 8] as [string, string, boolean, number]]),
    ...spec.lines.map((l): [string, string, boolean, number] => [l.label, l.color, l.dash === true, 2]),
  ];
  let lx = PAD.l;
  for (const [label, color, dash, width] of legend) {
    out.push(
      `<line x1="${lx}" y1="16" x2="${lx + 18}" y2="16" stroke="${color}" stroke-width="${width}"${dash ? ' stroke-dasharray="6 3"' : ''}/>`,
      `<text x="${lx + 24}" y="20" font-size="12">${e(label)}</text>`,
    );
    lx += 34 + label.length * 6.6;
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif">${out.join('')}</svg>`;
}
