/**
 * A GuideLLM-style `prompt_tokens` sweep through `flowgauge run` against the embedded service,
 * whose generation is known exactly: every band of report.json, the console and report.md/html
 * counts exactly the prompts of its length, each prompt is exactly its tokens (counted here with
 * the tokenizer package itself), and the output tokens observed equal those of the text the
 * service generated for each prompt.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { bandLabel } from '../../src/collect/index.js';
import type { Report } from '../../src/report/index.js';
import { createTokenPromptSource, loadTokenCounter, resolveScenario } from '../../src/scenario/index.js';
import { generateTokens } from '../../src/target/generator.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';

const TOKEN = 'fg_prompt_tokens_0123456789';
const OUTPUT_EVENTS = 12;
const SERVICE_SEED = 5;
const LENGTHS = [16, 100, 600];
const BANDS = [0, 64, 512];
const ITERATIONS = 30;

let dir: string;
let service: ReferenceService;
let flowId: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-prompt-tokens-'));
  service = await startReferenceService({
    seed: SERVICE_SEED,
    latency: { ttftMs: 4, itlMs: 1, jitter: 0, tokens: { min: OUTPUT_EVENTS, max: OUTPUT_EVENTS }, runOverheadMs: 0 },
    tokens: { [TOKEN]: { account: 'acct_b', tier: { limitPerMinute: 100_000 } } },
  });
  const flows = await createClient({ baseUrl: service.baseUrl, token: TOKEN }).listFlows();
  if (!flows.ok) throw new Error('no flows');
  flowId = (flows.value.flows.find((f) => f.status === 'published') ?? flows.value.flows[0])?.id ?? '';
});
afterAll(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

const scenario = (synthetic: unknown, extra: Record<string, unknown> = {}) => ({
  name: 'token-sweep',
  tier: 'pro',
  seed: 7,
  // 60/s for 500 ms: exactly 30 iterations, rows 0..29.
  load: { executor: 'constant-arrival-rate', rate: `${ITERATIONS * 2}/s`, duration: '500ms' },
  data: { synthetic },
  steps: [{ op: 'stream', flowId: '__FLOW__', input: '{{data.prompt}}' }],
  ...extra,
});

async function run(name: string, body: ReturnType<typeof scenario>): Promise<{ code: number; out: string; err: string; dir: string }> {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(body).replace('__FLOW__', flowId));
  const out = join(dir, name);
  const io = memoryIo({ cwd: dir });
  const code = await main(['run', file, '--base-url', service.baseUrl, '--token', TOKEN, '--out', out, '--no-audit'], io);
  return { code, out: io.out(), err: io.err(), dir: out };
}

describe('prompt lengths in tokens', () => {
  it('a prompt_tokens sweep reports per band, in cl100k_base tokens, exactly the truth', async () => {
    const body = scenario({ promptTokens: LENGTHS, tokenizer: 'cl100k_base' }, { promptBands: BANDS });
    const r = await run('sweep', body);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(readFileSync(join(r.dir, 'report.json'), 'utf8')) as Report;

    // The truth: the rows the scenario makes, the text the service generates for each.
    const resolved = resolveScenario(JSON.parse(JSON.stringify(body).replace('__FLOW__', flowId)));
    if (resolved.data?.kind !== 'synthetic-tokens') throw new Error('not synthetic tokens');
    const rows = createTokenPromptSource(resolved.data, await loadTokenCounter('cl100k_base'), resolved.seed);
    const truth = new Map<string, { prompts: number[]; outputs: number[] }>();
    for (let i = 0; i < ITERATIONS; i++) {
      const prompt = String(rows.row(i)?.prompt);
      const n = countTokens(prompt);
      expect(n).toBe(LENGTHS[i % LENGTHS.length]);
      const band = bandLabel(BANDS, n);
      const t = truth.get(band) ?? { prompts: [], outputs: [] };
      t.prompts.push(n);
      t.outputs.push(countTokens(generateTokens(SERVICE_SEED, flowId, prompt, OUTPUT_EVENTS).join('')));
      truth.set(band, t);
    }
    expect([...truth.keys()]).toEqual(['0-63', '64-511', '512+']);

    const p = report.stream.prompts?.cl100k_base;
    expect(p?.bands).toEqual(BANDS);
    expect(Object.keys(p?.byBand ?? {})).toEqual([...truth.keys()]);
    expect(p?.promptTokens.count).toBe(ITERATIONS);
    for (const [band, t] of truth) {
      const b = p?.byBand[band];
      const n = t.prompts.length;
      expect(b?.promptTokens).toMatchObject({ count: n, p50: t.prompts[0], max: t.prompts[0] });
      expect(b?.ttftMs.count).toBe(n);
      // Every stream has OUTPUT_EVENTS tokens; one a busy client read in one go (a burst) has no
      // TPOT or gaps to tell: the band's TPOT count is its streams less its bursts, with their gaps.
      expect(b?.tpotMs.count).toBeLessThanOrEqual(n);
      expect(b?.itlMs.count).toBe((b?.tpotMs.count ?? -1) * (OUTPUT_EVENTS - 1));
      const outs = [...t.outputs].sort((a, c) => a - c);
      const mean = Math.round((outs.reduce((s, x) => s + x, 0) / n) * 10) / 10;
      expect(b?.outputTokens).toMatchObject({ count: n, max: outs[n - 1], mean });
    }
    expect(Object.values(p?.byBand ?? {}).reduce((s, b) => s + b.tpotMs.count, 0)).toBe(ITERATIONS - (report.stream.deliveredAtOnce ?? 0));
    // Tokens per second needs time between the first token and the end: as the stream section counts it.
    expect(Object.values(p?.byBand ?? {}).reduce((s, b) => s + b.tokensPerS.count, 0)).toBe(report.stream.tokensPerS.count);
    const allOut = [...truth.values()].flatMap((t) => t.outputs);
    expect(p?.outputTokens.count).toBe(ITERATIONS);
    expect(p?.outputTokens.max).toBe(Math.max(...allOut));

    // The console, report.md and report.html say the same counts per band.
    for (const [band, t] of truth) expect(r.out).toContain(`prompt tokens ${band}: ${t.prompts.length} streams; TTFT p50 / p95 `);
    expect(r.out).toContain(`prompt length (tokens (cl100k_base)): p50 100, p95 600, max 600 over ${ITERATIONS} streams`);
    const md = readFileSync(join(r.dir, 'report.md'), 'utf8');
    expect(md).toContain('| prompt tokens | streams | TTFT p50 / p95 | ITL p50 / p95 | TPOT p50 / p95 | output tok/s p50 | output tokens p50 / mean |');
    for (const [band, t] of truth) expect(md).toContain(`| ${band} | ${t.prompts.length} | `);
    const html = readFileSync(join(r.dir, 'report.html'), 'utf8');
    expect(html).toContain('Stream timing by prompt length');
    for (const band of truth.keys()) expect(html).toContain(`<td>${band}</td>`);
  });

  it("GuideLLM's string form makes prompts of exactly prompt_tokens; an output length needs the flow variable that carries it", async () => {
    const r = await run('guidellm', scenario('prompt_tokens=256', { tokenizer: 'o200k_base', load: { executor: 'constant-arrival-rate', rate: '20/s', duration: '500ms' } }));
    expect(r.code).toBe(0);
    const report = JSON.parse(readFileSync(join(r.dir, 'report.json'), 'utf8')) as Report;
    const p = report.stream.prompts?.o200k_base;
    expect(p?.promptTokens).toMatchObject({ count: 10, p50: 256, max: 256 });
    expect(Object.keys(p?.byBand ?? {})).toEqual(['256-1023']);

    const bad = await run('guidellm-output', scenario('prompt_tokens=256,output_tokens=128'));
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/data\.synthetic\.outputTokens: the interface has no output-length parameter: name the flow variable that carries it \(outputTokensVar: max_tokens\)/);
    const unknown = await run('guidellm-unknown', scenario('prompt_tokens=256,samples=10'));
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/data\.synthetic\.samples: .*allowed: promptTokens, outputTokens, outputTokensVar, tokenizer/);
    const badTokenizer = await run('bad-tokenizer', scenario({ promptTokens: 8 }, { tokenizer: 'gpt2' }));
    expect(badTokenizer.code).toBe(2);
    expect(badTokenizer.err).toMatch(/tokenizer: "gpt2" is not a tokenizer; one of words, cl100k_base, o200k_base/);
  });
});
