/**
 * Simulated generation: the text of a run (a function of the input alone, so the same input
 * always yields the same words) and the schedule of its tokens (drawn from the latency model).
 */
import { countWords } from '../core/words.js';
import type { ResolvedLatency } from './options.js';
import { createPrng, hash32, type Prng } from './prng.js';

const WORDS = [
  'the', 'flow', 'processed', 'your', 'request', 'and', 'found', 'that', 'a', 'summary', 'of', 'input',
  'shows', 'three', 'key', 'points', 'first', 'second', 'third', 'customer', 'asked', 'about', 'billing',
  'support', 'ticket', 'was', 'routed', 'to', 'team', 'with', 'high', 'priority', 'result', 'is', 'ready',
  'next', 'step', 'review', 'data', 'extracted', 'from', 'document', 'answer', 'based', 'on', 'context',
  'provided', 'model', 'suggests', 'update', 'record', 'in', 'system', 'confidence', 'score', 'remains',
  'stable', 'across', 'runs', 'overall', 'status', 'looks', 'good', 'today',
];

/** Number of words, at least 1: the prompt-token estimate. */
export function promptTokens(input: string): number {
  return Math.max(1, countWords(input));
}

/**
 * The seed of the text a run on `flowId` produces for `input`: with the token count it is
 * all a finished run needs to keep, its output being regenerated on read (`tokensOf`).
 */
export function outputSeed(seed: number, flowId: string, input: string): number {
  return hash32(`${flowId}\u0000${input}`, seed);
}

/** `n` token strings that concatenate to the output for `input` on `flowId`. */
export function generateTokens(seed: number, flowId: string, input: string, n: number): string[] {
  return tokensOf(outputSeed(seed, flowId, input), n);
}

/** The first `n` tokens of the text of an `outputSeed`. */
export function tokensOf(textSeed: number, n: number): string[] {
  const prng = createPrng(textSeed);
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    const w = WORDS[prng.int(0, WORDS.length - 1)] as string;
    out[i] = i === 0 ? w.charAt(0).toUpperCase() + w.slice(1) : ` ${w}`;
  }
  return out;
}

/** A gap scaled by the jitter factor. */
function jittered(baseNs: number, jitter: number, prng: Prng): number {
  if (baseNs === 0 || jitter === 0) return baseNs;
  return Math.max(0, baseNs * (1 + jitter * (2 * prng.next() - 1)));
}

/**
 * Absolute times of `n + 1` moments: tokens 0..n-1, then the moment the run would produce
 * token n (used as the failure instant of a failing run). First token at TTFT from `startNs`.
 */
export function planTokenTimes(latency: ResolvedLatency, prng: Prng, n: number, startNs: number, promptWords = 0): number[] {
  const times = new Array<number>(n + 1);
  // Reading the prompt (prefill) comes before the first token: TTFT grows with its length.
  let t = startNs + jittered(latency.ttftNs + promptWords * latency.prefillNsPerWord, latency.jitter, prng);
  for (let i = 0; i <= n; i++) {
    times[i] = t;
    t += jittered(latency.itlNs, latency.jitter, prng);
  }
  return times;
}

/** Renders a webhook payload into a run input: `{key}` variables, or the JSON when no template. */
export function renderTemplate(template: string | undefined, payload: Readonly<Record<string, unknown>>): string {
  if (template === undefined) return JSON.stringify(payload);
  return template.replace(/\{([^{}]+)\}/g, (_m, key: string) => {
    const v = Object.prototype.hasOwnProperty.call(payload, key) ? payload[key] : undefined;
    if (v === undefined || v === null) return '';
    return typeof v === 'string' ? v : JSON.stringify(v);
  });
}
