/**
 * The stream figures in words, the same in the console summary, report.md and report.html: the
 * timings an LLM benchmark's user looks for (TTFT, ITL, TPOT, output tokens per second) and the
 * streams delivered in one burst, which those figures leave out.
 */
import type { Pct } from '../collect/histogram.js';
import { fmtDuration, fmtNumber } from './format.js';
import type { StreamReport } from './model.js';

type StreamFigures = Pick<StreamReport, 'count' | 'completed' | 'tokens' | 'ttftMs' | 'itlMs' | 'tpotMs' | 'tokensPerS' | 'deliveredAtOnce'>;

// A figure with no value is a dash, never a 0 that reads as measured.
const durations = (name: string, x: Pct): string => (x.count === 0 ? `${name} —` : `${name} p50 ${fmtDuration(x.p50)} p99 ${fmtDuration(x.p99)}`);

/**
 * The sentence naming the streams delivered at once (all their tokens in one read), or undefined
 * when there were none: they are counted, and kept out of ITL, TPOT and tokens per second.
 */
export function burstSentence(s: Pick<StreamReport, 'count' | 'deliveredAtOnce'>): string | undefined {
  const n = s.deliveredAtOnce ?? 0;
  if (n === 0) return undefined;
  const rest = s.count - n;
  const of = rest === 0 ? 'so no stream is left to measure them' : `which are of the other ${rest}`;
  return (
    `${n} of ${s.count} stream${s.count === 1 ? '' : 's'} delivered all ${n === 1 ? 'its' : 'their'} tokens in one read (a burst: not streamed to flowgauge); ` +
    `left out of inter-token latency, TPOT and tokens per second, ${of}`
  );
}

/** The console's stream lines: timings, then the bursts when there were any. */
export function streamSummaryLines(s: StreamFigures): string[] {
  if (s.count === 0) return [];
  const perS = s.tokensPerS;
  const rate = perS.count === 0 ? '—' : `p50 ${fmtNumber(perS.p50)} p99 ${fmtNumber(perS.p99)} mean ${fmtNumber(perS.mean)}`;
  const lines = [
    `stream  ${s.completed}/${s.count} complete, ${s.tokens} tokens; ${durations('TTFT', s.ttftMs)}; ${durations('ITL', s.itlMs)}`,
    `        ${durations('TPOT', s.tpotMs)}; output tokens/s per stream ${rate}`,
  ];
  const burst = burstSentence(s);
  if (burst !== undefined) lines.push(`bursts  ${burst}`);
  return lines;
}
