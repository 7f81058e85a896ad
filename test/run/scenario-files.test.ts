/**
 * The ready scenario files in scenarios/, loaded as the CLI loads them and run against the
 * embedded service; expectations come from the service's own counters and the data file.
 */
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { REPORT_JSON_SCHEMA } from '../../src/report/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../src/api/index.js';
import { bandLabel, defaultPromptBands } from '../../src/collect/index.js';
import { countWords } from '../../src/core/words.js';
import { executeRun, type RunOptions } from '../../src/run/index.js';
import { loadScenarioFile, planOf, resolveRunPlan, type ScenarioOverrides } from '../../src/scenario/index.js';
import { startReferenceService, type ReferenceService, type ReferenceServiceOptions } from '../../src/target/index.js';

const FREE = 'fg_files_free';
const PRO = 'fg_files_pro';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function service(options: ReferenceServiceOptions = {}): Promise<ReferenceService> {
  const s = await startReferenceService({
    tokens: { [FREE]: { account: 'acct_a', tier: 'free' }, [PRO]: { account: 'acct_b', tier: 'pro' } },
    ...options,
  });
  cleanups.push(() => s.close());
  return s;
}

function client(s: ReferenceService, token = PRO): Client {
  const c = createClient({ baseUrl: s.baseUrl, token, connections: 32 });
  cleanups.push(() => c.close());
  return c;
}

async function load(path: string, overrides: ScenarioOverrides, patch: (raw: Record<string, unknown>) => void = () => {}) {
  const raw = (await loadScenarioFile(path)) as Record<string, unknown>;
  patch(raw);
  return resolveRunPlan(raw, overrides, { source: path });
}

const validReport = new Ajv({ strict: false, allErrors: true }).compile(REPORT_JSON_SCHEMA);

/** Runs, and holds every report to the published report@1 schema. */
async function run(s: ReferenceService, scenario: RunOptions['scenario'], more: Partial<RunOptions> = {}) {
  const outcome = await executeRun({ scenario, client: client(s), target: { baseUrl: s.baseUrl, embedded: true }, ...more });
  expect(validReport(JSON.parse(JSON.stringify(outcome.report))), JSON.stringify(validReport.errors)).toBe(true);
  return outcome;
}

describe('ready scenario files', () => {
  it('conversation-steps.yaml: every iteration stores 6 messages and passes its templated checks', async () => {
    const s = await service({ latency: 'none' });
    const plan = await load('scenarios/conversation-steps.yaml', { rate: '20/s', durationMs: 500 }, (raw) => {
      // Think time of 5 ms instead of 2 s, so the test takes half a second.
      const turns = (raw.steps as { steps?: { sleep?: string }[] }[])[1]?.steps?.[1];
      if (turns?.sleep !== '2s') throw new Error('the shipped file changed shape');
      turns.sleep = '5ms';
    });
    const { report } = await run(s, plan);
    expect(report.iterations).toMatchObject({ started: 10, completed: 10, failed: 0, interrupted: 0 });
    expect(s.stats().sessions).toBe(10);
    expect(s.stats().streams.started).toBe(30);
    expect(report.ops.stream?.count).toBe(30);
    expect(report.checks).toEqual({
      'history holds every turn': { passes: 10, fails: 0 },
      'history counts every message': { passes: 10, fails: 0 },
    });
    expect(Object.keys(report.steps ?? {}).sort()).toEqual(['open session', 'read history', 'turn']);
    expect(report.verdict).toBe('PASS');
  });

  it('prompt-sweep.ts: TTFT by prompt length, each band counting exactly the prompts of the file in it', async () => {
    const s = await service();
    const prompts = readFileSync('scenarios/data/prompts.jsonl', 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { prompt: string }).prompt);
    // One pass over the file: as many iterations as rows.
    const plan = await load('scenarios/prompt-sweep.ts', { rate: `${prompts.length * 2}/s`, durationMs: 500 });
    const { report } = await run(s, plan);
    expect(report.iterations?.completed).toBe(prompts.length);
    const expected: Record<string, number> = {};
    const band = (p: string): string => bandLabel(defaultPromptBands('words'), countWords(p));
    for (const p of prompts) expected[band(p)] = (expected[band(p)] ?? 0) + 1;
    const words = report.stream.prompts?.words;
    const bands = words?.byBand ?? {};
    expect(Object.fromEntries(Object.entries(bands).map(([b, p]) => [b, p.ttftMs.count]))).toEqual(expected);
    expect(Object.fromEntries(Object.entries(bands).map(([b, p]) => [b, p.promptTokens.count]))).toEqual(expected);
    expect(words?.promptTokens.count).toBe(prompts.length);
    expect(words?.promptTokens.max).toBe(Math.max(...prompts.map(countWords)));
    // The service reads a prompt before it answers: the longest band waits longer than the shortest.
    expect((bands['1025+']?.ttftMs.p50 ?? 0) - (bands['1-16']?.ttftMs.p50 ?? Infinity)).toBeGreaterThan(30);
  });

  it('tenants.ts: the free tenant at 150 % gets exactly the service 429s, the pro tenant at 80 % none', async () => {
    // A 2 s limiter window scales both tiers' limits down, so 2 s of traffic crosses the free one.
    const s = await service({ latency: 'none', rateLimit: { windowMs: 2000 } });
    const plan = planOf(await load('scenarios/tenants.ts', { durationMs: 2000 }));
    const { report } = await run(s, plan, { clients: { free: client(s, FREE), pro: client(s, PRO) } });
    const sent429 = s.stats().rateLimited;
    expect(sent429).toBeGreaterThan(0);
    expect(report.scenarios?.free?.rateLimit.responses429).toBe(sent429);
    expect(report.scenarios?.free?.rateLimit.premature429).toBe(0);
    expect(report.scenarios?.pro?.rateLimit.responses429).toBe(0);
    expect(report.thresholds.filter((t) => !t.passed)).toEqual([]);
  });
});
