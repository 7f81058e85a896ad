/**
 * What the console summary, report.md and report.html say about prompt lengths: per unit (words
 * or a tokenizer's tokens) and band, the streams, TTFT, ITL, TPOT, output tokens per second and
 * the output tokens observed. A report written before the unit could be chosen has TTFT by words
 * only (`ttftByInputWords`); it is shown as it was. Pure.
 */
import type { Pct } from '../collect/histogram.js';
import { fmtDuration, fmtNumber } from './format.js';
import type { Report } from './model.js';

/** The unit as a reader says it. */
const unitNoun = (unit: string): string => (unit === 'words' ? 'words' : `tokens (${unit})`);

/** One table of prompt lengths in one unit. */
export interface PromptLengthTable {
  /** `prompt length (tokens (cl100k_base)): p50 256, p95 1024, max 1024 over 30 streams; output tokens p50 …`. */
  readonly line: string;
  readonly head: readonly string[];
  /** Cells; every column but the first is a number. */
  readonly rows: readonly (readonly string[])[];
}

const p50p95 = (p: Pct, f: (x: number) => string): string => (p.count === 0 ? '–' : `${f(p.p50)} / ${f(p.p95)}`);
const count = (x: number): string => fmtNumber(x);
const rate = (x: number): string => fmtNumber(Math.round(x * 10) / 10);

/** The prompt-length tables of a report (none when no stream had an input). */
export function promptLengthTables(r: Report): PromptLengthTable[] {
  const prompts = r.stream.prompts;
  if (prompts !== undefined) {
    return Object.entries(prompts).flatMap(([unit, u]) => {
      if (u.promptTokens.count === 0) return [];
      const noun = unitNoun(unit);
      const out = u.outputTokens.count === 0 ? '' : `; output ${noun} p50 ${count(u.outputTokens.p50)}, mean ${count(u.outputTokens.mean)}`;
      return [
        {
          line: `prompt length (${noun}): p50 ${count(u.promptTokens.p50)}, p95 ${count(u.promptTokens.p95)}, max ${count(u.promptTokens.max)} over ${u.promptTokens.count} streams${out}`,
          head: [`prompt ${unit === 'words' ? 'words' : 'tokens'}`, 'streams', 'TTFT p50 / p95', 'ITL p50 / p95', 'TPOT p50 / p95', 'output tok/s p50', 'output tokens p50 / mean'],
          rows: Object.entries(u.byBand).map(([band, b]) => [
            band,
            String(b.promptTokens.count),
            p50p95(b.ttftMs, fmtDuration),
            p50p95(b.itlMs, fmtDuration),
            p50p95(b.tpotMs, fmtDuration),
            b.tokensPerS.count === 0 ? '–' : rate(b.tokensPerS.p50),
            b.outputTokens.count === 0 ? '–' : `${count(b.outputTokens.p50)} / ${count(b.outputTokens.mean)}`,
          ]),
        },
      ];
    });
  }
  const w = r.stream.inputWords;
  if (w === undefined || w.count === 0) return [];
  return [
    {
      line: `prompt length (words): p50 ${count(w.p50)}, p95 ${count(w.p95)}, max ${count(w.max)} over ${w.count} streams`,
      head: ['prompt words', 'streams', 'TTFT p50 / p95'],
      rows: Object.entries(r.stream.ttftByInputWords ?? {}).map(([band, p]) => [band, String(p.count), p50p95(p, fmtDuration)]),
    },
  ];
}

/** Console lines: the line of each unit, then one per band. */
export function promptLengthLines(r: Report): string[] {
  return promptLengthTables(r).flatMap((t) => [
    t.line,
    ...t.rows.map((row) => `  ${t.head[0] ?? ''} ${row[0] ?? ''}: ${row[1] ?? ''} streams; ${t.head.slice(2).map((h, i) => `${h} ${row[i + 2] ?? ''}`).join('; ')}`),
  ]);
}
