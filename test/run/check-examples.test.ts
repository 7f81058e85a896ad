/**
 * Checks say what they saw (issue 28, item 5): templates are filled in a check's strings, a
 * failed check keeps up to 3 examples of expected against actual (report.json, console,
 * report.md), a journey's failed iterations and checks are judged by the default thresholds,
 * and what a journey throws says where (file:line of the scenario's own file, its .ts line).
 * Against the reference service, whose session history holds each run's input as it was sent.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { Report } from '../../src/report/index.js';
import { executeRun } from '../../src/run/index.js';
import { loadScenarioFile, resolveRunPlan, resolveScenario, type Journey } from '../../src/scenario/index.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';

const TOKEN = 'fg_check_examples_token_0123456789';
let dir: string;
let service: ReferenceService;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-check-examples-'));
  service = await startReferenceService({ latency: 'none', tokens: { [TOKEN]: { account: 'acct_b', tier: { limitPerMinute: 100_000 } } } });
});
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});
afterAll(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A steps scenario: each iteration runs `echo: <its prompt>` in a session of its own, then reads the history back with `check`. */
function echoYaml(name: string, check: string[], extra: string[] = []): string {
  return [
    `name: ${name}`,
    'tier: { limitPerMinute: 100000 }',
    'load: { rate: 40/s, duration: 500ms }',
    'data: { synthetic: { words: { mean: 6, sd: 3, min: 2, max: 12 } } }',
    'steps:',
    '  - op: createSession',
    '    save: { session: id }',
    '  - op: run',
    '    input: "echo: {{data.prompt}}"',
    '    sessionId: "{{session}}"',
    '  - op: getHistory',
    '    sessionId: "{{session}}"',
    '    check:',
    ...check.map((c) => `      ${c}`),
    ...extra,
    '',
  ].join('\n');
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** `flowgauge run <path>` against the service: exit code, console, report.json and report.md. */
async function cliRun(path: string): Promise<{ code: number; out: string; report: Report; md: string }> {
  const io = memoryIo({ cwd: dir });
  const out = mkdtempSync(join(dir, 'out-'));
  const code = await main(['run', path, '--base-url', service.baseUrl, '--token', TOKEN, '--out', out], io);
  expect(io.err()).not.toContain('Error');
  return { code, out: io.out(), report: JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report, md: readFileSync(join(out, 'report.md'), 'utf8') };
}

describe('checks say what they saw', () => {
  it('a YAML echo check with {{data.prompt}} in equals and matches passes 20 of 20 (templates are filled in checks)', async () => {
    const path = file(
      'echo.yaml',
      echoYaml('echo', ['echoes: { path: "messages[0].content", equals: "echo: {{data.prompt}}" }', 'starts with it: { path: "messages[0].content", matches: "^echo: {{data.prompt}}$" }']),
    );
    const plan = resolveRunPlan(await loadScenarioFile(path), {}, { source: path });
    const client = createClient({ baseUrl: service.baseUrl, token: TOKEN, connections: 16 });
    cleanups.push(() => client.close());
    const { report } = await executeRun({ scenario: plan, client, target: { baseUrl: service.baseUrl, embedded: true } });
    expect(report.iterations).toMatchObject({ started: 20, completed: 20, failed: 0 });
    expect(report.checks).toEqual({
      echoes: { passes: 20, fails: 0 },
      'starts with it': { passes: 20, fails: 0 },
    });
    // No thresholds written: the defaults judge the iterations and the checks too.
    expect(report.thresholds.map((t) => [t.metric, t.passed, t.implicit])).toEqual([
      ['availability', true, true],
      ['ratelimit.premature429', true, true],
      ['iterations.failed', true, true],
      ['checks', true, true],
    ]);
    expect(report.verdict).toBe('PASS');
  });

  it('a failing check keeps 3 examples of expected against actual in report.json, on the console and in report.md; the default checks threshold fails the run', async () => {
    const path = file('wrong.yaml', echoYaml('wrong', ['echoes: { path: "messages[0].content", equals: "echo: {{data.prompt}}" }', 'wrong: { path: "messages[0].content", equals: "not {{data.prompt}}" }']));
    const { code, out, report, md } = await cliRun(path);
    expect(code).toBe(1);
    expect(report.checks?.echoes).toEqual({ passes: 20, fails: 0 });
    const wrong = report.checks?.wrong;
    expect(wrong).toMatchObject({ passes: 0, fails: 20 });
    const examples = wrong?.examples ?? [];
    expect(examples).toHaveLength(3);
    for (const e of examples) {
      // What was seen is this iteration's input; what was expected, the template filled with the same prompt.
      const seen = JSON.parse(e.actual) as string;
      expect(seen).toMatch(/^echo: \S+/);
      expect(e.expected).toBe(JSON.stringify(`not ${seen.slice('echo: '.length)}`));
    }
    expect(new Set(examples.map((e) => e.actual)).size).toBe(3);
    expect(out).toContain('✗ check wrong: 0 passed, 20 failed (0 %)');
    for (const e of examples) expect(out).toContain(`    expected: ${e.expected} · actual: ${e.actual}`);
    expect(md).toContain('| check | expected | actual |');
    expect(report.thresholds.find((t) => t.metric === 'checks')).toMatchObject({ passed: false, implicit: true });
    expect(report.verdict).toBe('FAIL');
    expect(out).not.toContain(TOKEN);
  });

  it('vu.check(name, condition, { expected, actual }) keeps examples of a code journey; a check without detail keeps none', async () => {
    const journey: Journey = async (vu) => {
      const h = await vu.listFlows({ limit: 1 });
      const n = h.ok ? h.value.flows.length : undefined;
      vu.check('two flows', n === 2, { expected: 2, actual: n });
      vu.check('bare', false);
      vu.check('long', false, { expected: 'x'.repeat(500), actual: { iteration: vu.iteration } });
    };
    const client = createClient({ baseUrl: service.baseUrl, token: TOKEN, connections: 16 });
    cleanups.push(() => client.close());
    const scenario = resolveScenario({ name: 'code-checks', tier: { limitPerMinute: 100_000 }, load: { rate: '20/s', duration: '500ms' }, journey });
    const { report } = await executeRun({ scenario, client, target: { baseUrl: service.baseUrl, embedded: true } });
    expect(report.checks?.['two flows']).toEqual({ passes: 0, fails: 10, examples: [{ expected: '2', actual: '1' }] });
    expect(report.checks?.bare).toEqual({ passes: 0, fails: 10 });
    const long = report.checks?.long?.examples ?? [];
    expect(long).toHaveLength(3);
    expect(long[0]?.expected).toBe(`${'x'.repeat(200)}…`);
    expect(long.map((e) => JSON.parse(e.actual) as unknown)).toEqual([{ iteration: 0 }, { iteration: 1 }, { iteration: 2 }]);
  });
});

describe('a journey that throws', () => {
  /** A .ts scenario whose journey throws on every iteration; types above it move the compiled line away from the source line. */
  const source = (thresholds: string): string =>
    [
      "import { defineScenario } from 'flowgauge';",
      '',
      'interface Answer {',
      '  readonly id: string;',
      '}',
      '',
      'export default defineScenario({',
      "  name: 'throws',",
      "  tier: { limitPerMinute: 100000 },",
      "  load: { rate: '20/s', duration: '500ms' },",
      '  journey: async (vu) => {',
      '    await vu.listFlows({ limit: 1 });',
      '    const answer: Answer | undefined = undefined;',
      '    return (answer as unknown as Answer).id;',
      '  },',
      ...(thresholds === '' ? [] : [`  ${thresholds}`]),
      '});',
      '',
    ].join('\n');
  const THROW_LINE = 14;

  it('exits 1 under the default thresholds, with the error and its file:line (the .ts line) in report.json and the summary', async () => {
    const path = file('throws.ts', source(''));
    expect(readFileSync(path, 'utf8').split('\n')[THROW_LINE - 1]).toContain('(answer as unknown as Answer).id');
    const { code, out, report } = await cliRun(path);
    expect(code).toBe(1);
    expect(report.iterations).toMatchObject({ started: 10, failed: 10 });
    const [error] = report.iterations?.errors ?? [];
    expect(error?.count).toBe(10);
    expect(error?.message).toMatch(new RegExp(`^TypeError: Cannot read properties of undefined \\(reading 'id'\\) \\(at \\S*throws\\.ts:${THROW_LINE}:\\d+\\)$`));
    expect(out).toContain(`failed ×10: ${error?.message}`);
    expect(report.thresholds.find((t) => t.metric === 'iterations.failed')).toMatchObject({ observed: 10, passed: false, implicit: true });
    // A journey that made no check passes the default on checks: it is judged on its iterations.
    expect(report.thresholds.find((t) => t.metric === 'checks')).toMatchObject({ observed: null, passed: true, implicit: true });
    expect(out).toContain('thresholds (the defaults');
    expect(report.verdict).toBe('FAIL');
  });

  it('thresholds: {} still turns the defaults off: exit 0', async () => {
    const { code, report } = await cliRun(file('throws-unjudged.ts', source('thresholds: {},')));
    expect(report.iterations).toMatchObject({ started: 10, failed: 10 });
    expect(report.thresholds).toEqual([]);
    expect(code).toBe(0);
  });
});
