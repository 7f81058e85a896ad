/**
 * k6 scripts converted to journey scenarios (`convertK6Script`), on scripts of the shapes k6's
 * own documentation shows (k6-scripts/): each converted file loads, validates, and has the load,
 * operations, checks, steps and thresholds its script had; what has no flowgauge form is marked
 * where it was. Running them is test/cli/k6-convert.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import ts from 'typescript';
import { strictUserOptions } from '../helpers/strict-user-ts.js';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import { convertK6Script, loadScenarioFile, resolveRunPlan, type ResolvedRunPlan, type ResolvedScenario } from '../../src/scenario/index.js';
import { scanScript, scanTokens, MAX_NESTING } from '../../src/scenario/k6/js-scan.js';
import { statementsOf, textOf } from '../../src/scenario/k6/js-read.js';
import { shimCode } from '../../src/scenario/k6/k6-shims.js';
import { httpRowName } from '../../src/slo/k6-thresholds.js';

const dir = mkdtempSync(join(tmpdir(), 'fg-k6-convert-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const script = (name: string): string => readFileSync(join(import.meta.dirname, 'k6-scripts', `${name}.js`), 'utf8');

function convert(name: string): ReturnType<typeof convertK6Script> {
  return convertK6Script(script(name), { name, script: `${name}.js` });
}

/** Writes the converted file, loads it as `flowgauge run` does and resolves it. */
async function loaded(name: string): Promise<ResolvedScenario | ResolvedRunPlan> {
  const path = join(dir, `${name}.ts`);
  writeFileSync(path, convert(name).text);
  return resolveRunPlan(await loadScenarioFile(path), {}, { source: path });
}

const single = (r: ResolvedScenario | ResolvedRunPlan): ResolvedScenario => {
  if ('kind' in r) throw new Error('expected one scenario');
  return r;
};

/** A guard against a hang, not a timing: loading a .ts file starts tsx, slow on a loaded machine. */
const LOAD_GUARD = { timeout: 120_000 };

describe('k6 scripts of the documented shapes convert into scenarios that load and validate', LOAD_GUARD, () => {
  it('http_get with checks and sleep: a journey sending listFlows, one VU as one worker for 30 s', async () => {
    const c = convert('http-get');
    expect(c.notConverted).toEqual([]);
    expect(c.text).toContain('const res = k6Response(await vu.listFlows());');
    expect(c.text).toContain("k6Check(vu, res, {\n    'is status 200': (r) => r.status === 200,");
    expect(c.text).toContain("await vu.sleep('0.1s');");
    expect(c.text).toContain("const BASE_URL = process.env.BASE_URL || 'https://api.example.com/v1';");
    const s = single(await loaded('http-get'));
    expect(s.load).toEqual({ executor: 'constant-concurrency', concurrency: 1, durationMs: 30_000, gracefulStopMs: 5000 });
    expect(typeof s.journey).toBe('function');
  });

  it('stages (ramping VUs, no semicolons): a ramp of iterations per second, capped at the peak VUs', async () => {
    const c = convert('stages');
    expect(c.text).toContain('const res = k6Response(await vu.listFlows(k6Query(`${process.env.BASE_URL}/flows?limit=5`)))\n');
    expect(c.text).toMatch(/k6's ramping-vus \(20 VUs over 30s, 10 VUs over 1m30s, 0 VUs over 20s\)/);
    const s = single(await loaded('stages'));
    expect(s.load).toEqual({
      executor: 'ramping-arrival-rate',
      startRatePerS: 1,
      stages: [
        { durationMs: 30_000, targetRatePerS: 20 },
        { durationMs: 90_000, targetRatePerS: 10 },
        { durationMs: 20_000, targetRatePerS: 0 },
      ],
      maxInFlight: 20,
      gracefulStopMs: 5000,
    });
  });

  it('scenarios of every executor: one scenario each, its function as its journey, startTime as startAfter', async () => {
    const c = convert('scenarios');
    expect(c.scenarios).toEqual(['browse', 'run-flows', 'ramp', 'per-vu', 'shared', 'steady']);
    expect(c.notConverted).toEqual([
      'iterations: 3 (per-vu-iterations: each of 1 VUs a count of iterations; flowgauge schedules by time, so the 1 workers run for maxDuration)',
      'iterations: 10 (shared-iterations: 2 VUs share a count of iterations; flowgauge schedules by time, so the 2 workers run for maxDuration)',
    ]);
    expect(c.text).toContain("const res = k6Response(await vu.run(flowId, { input: 'Summarise the release notes.' }, k6Options({");
    expect(c.text).toContain('async function session(vu: Vu) {');
    const plan = await loaded('scenarios');
    if (!('kind' in plan)) throw new Error('expected a plan');
    const loads = Object.fromEntries(plan.scenarios.map((s) => [s.name, s.load]));
    expect(loads).toEqual({
      browse: { executor: 'constant-concurrency', concurrency: 2, durationMs: 30_000, gracefulStopMs: 5000 },
      'run-flows': { executor: 'constant-arrival-rate', ratePerS: 0.5, durationMs: 30_000, maxInFlight: 10, gracefulStopMs: 5000 },
      ramp: { executor: 'ramping-arrival-rate', startRatePerS: 0, stages: [{ durationMs: 10_000, targetRatePerS: 4 }, { durationMs: 5000, targetRatePerS: 0 }], maxInFlight: 2, gracefulStopMs: 5000 },
      'per-vu': { executor: 'constant-concurrency', concurrency: 1, durationMs: 20_000, gracefulStopMs: 5000 },
      shared: { executor: 'constant-concurrency', concurrency: 2, durationMs: 600_000, gracefulStopMs: 5000 },
      steady: { executor: 'ramping-arrival-rate', startRatePerS: 0, stages: [{ durationMs: 10_000, targetRatePerS: 5 }], maxInFlight: 5, gracefulStopMs: 5000 },
    });
    expect(plan.scenarios.find((s) => s.name === 'run-flows')?.startAfterMs).toBe(5000);
  });

  it('thresholds with tags: per row, per check, abortOnFail kept; custom metrics and group durations noted', async () => {
    const c = convert('thresholds');
    const s = single(await loaded('thresholds'));
    expect(Object.fromEntries(s.thresholds.map((t) => [t.key, t.expr]))).toEqual({
      'http:health.latency.p95': '<2000',
      'listFlows.latency.p99': '<3000',
      'http:health.errors.rate': '<0.05',
      'http:health.count': '>0',
      'checks.flows listed': '>0.9',
      'errors.rate': '<0.05',
      'listFlows.latency.p95': '<2000',
      'http:health.latency.p99': '<3000',
      checks: '>0.9',
      'iteration.duration.p95': '<5000',
      'iteration.duration.p50': '<4000',
    });
    expect(s.thresholds.find((t) => t.key === 'listFlows.latency.p99')).toMatchObject({ abortOnFail: true, delayAbortEvalMs: 10_000 });
    // Keys with tags are read first: the more precise one keeps its key (and its abortOnFail).
    expect(c.notConverted).toEqual([
      "Trend from 'k6/metrics' (flowgauge keeps no custom metrics, so its add() records nothing; vu.step times a part of the journey, vu.check counts passes)",
      'thresholds["group_duration{group:::browse}"]: "group_duration{group:::browse}" is a k6 metric; flowgauge has no threshold on a step\'s duration; report.json times each step (steps.<name>)',
      'thresholds["waiting_time"] (a custom metric: flowgauge keeps none)',
      'thresholds["http_req_waiting"]: "http_req_waiting" is a k6 metric; flowgauge keeps time to first byte for streams: stream.ttfb.<stat>',
    ]);
  });

  it('groups and setup: each group a step (nested too), setup run once and passed to every iteration, fail as vu.fail', async () => {
    const c = convert('groups');
    expect(c.notConverted).toEqual([]);
    expect(c.text).toContain("await vu.step('visit the flow list', async () => {");
    expect(c.text).toContain("await vu.step('a turn', async () => {");
    expect(c.text).toContain("vu.fail('no flow');");
    expect(c.text).toContain('const k6SetupData = (vu: Vu): Promise<any> => (setupData ??= setup(vu));');
    expect(c.text).toContain('await iteration(vu, await k6SetupData(vu));');
    expect(c.text).toContain('k6Response(await vu.getHistory(sessionId))');
    expect(single(await loaded('groups')).name).toBe('groups');
  });

  it('what has no flowgauge form is marked where it was, and the file still loads', async () => {
    const c = convert('unconvertible');
    expect(c.notConverted).toEqual([
      "ws from 'k6/ws' (k6 modules beyond http, metrics, data and encoding have no flowgauge form)",
      "exec from 'k6/execution' (k6 modules beyond http, metrics, data and encoding have no flowgauge form)",
      "Counter from 'k6/metrics' (flowgauge keeps no custom metrics, so its add() records nothing; vu.step times a part of the journey, vu.check counts passes)",
      "Rate from 'k6/metrics' (flowgauge keeps no custom metrics, so its add() records nothing; vu.step times a part of the journey, vu.check counts passes)",
      "textSummary from 'https://jslib.k6.io/k6-summary/0.0.1/index.js' (a remote module)",
      "randomSeed(...) (flowgauge's data order is set by the scenario's seed)",
      '__VU (an open model has no numbered VUs; vu.iteration numbers the iterations)',
      "http.cookieJar(...) (k6/http's cookieJar has no flowgauge form)",
      'http.get(...) in a function that is not async (make it async and await it)',
      'teardown (flowgauge has no hook after the run; kept below as comments)',
      'handleSummary (flowgauge writes report.json, report.md and report.html; `flowgauge report` renders them again)',
      'options.insecureSkipTLSVerify (give --insecure to flowgauge run (or --ca with your CA))',
      'options.noConnectionReuse (flowgauge keeps connections (--connections caps them))',
    ]);
    // Every note is a comment line of the file, at the place it names.
    expect(c.text.match(/^\s*\/\/ flowgauge: not converted: /gm)).toHaveLength(c.notConverted.length);
    expect(c.text).toMatch(/\/\/ flowgauge: not converted: http\.get\(\.\.\.\) in a function that is not async.*\n {2}\[1, 2\]\.forEach\(\(n\) => k6NotConverted\("http\.get\(\.\.\.\)"\)\);/);
    expect(c.text).toContain('async function listFlows(vu: Vu, limit) {');
    expect(c.text).toContain('const res = (await listFlows(vu, 2));');
    expect(c.text).toContain('(await k6Batch(vu, [');
    expect(c.text).toContain("const prompts = new SharedArray('prompts', function () {");
    expect(single(await loaded('unconvertible')).name).toBe('unconvertible');
  });
});

describe('the converted file', () => {
  it("has shims that type-check under strict against flowgauge's Vu, in erasable syntax (the k6 code itself is kept as written)", () => {
    const all = new Set(['k6Response', 'k6Request', 'k6Json', 'k6Query', 'k6Options', 'k6Check', 'k6Batch', 'k6NotConverted', 'k6Stub', 'K6Metric', 'SharedArray', 'k6Open', 'randomIntBetween', 'randomItem', 'randomString', 'uuidv4', 'findBetween', 'k6Encoding']);
    const { imports, code } = shimCode(all);
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    const file = join(dir, 'shims.ts');
    writeFileSync(file, `import type { Vu } from 'flowgauge';\n${imports.join('\n')}\n${code}\nexport const used = [${[...all].join(', ')}];\n`);
    // Vu is all the shims take from flowgauge: its module alone keeps the program small.
    const program = ts.createProgram(
      [file],
      strictUserOptions(join(process.cwd(), 'src', 'scenario', 'journey.ts'), {
        // What Node's own type stripping runs: no parameter properties, enums or namespaces.
        erasableSyntaxOnly: true,
      }),
    );
    // The shims' own file: flowgauge's sources are checked by their own build, not under erasableSyntaxOnly.
    const problems = ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(problems).toEqual([]);
  }, 180_000);

  it("names a vu.http row at run time (k6RowName) as the converter does before it (httpRowName)", () => {
    const { code } = shimCode(new Set(['k6RowName']));
    const js = ts.transpileModule(`${code}\nexport { k6RowName };`, { compilerOptions: { module: ts.ModuleKind.CommonJS } }).outputText;
    const mod: { exports: { k6RowName?: (s: string) => string } } = { exports: {} };
    new Function('module', 'exports', js)(mod, mod.exports);
    const k6RowName = mod.exports.k6RowName as (s: string) => string;
    fc.assert(
      fc.property(fc.string({ maxLength: 90 }), (tag) => {
        expect(k6RowName(tag)).toBe(httpRowName(tag));
      }),
      { numRuns: 2000 },
    );
    expect(httpRowName('https://test.k6.io/news?x=1')).toBe('test.k6.io-news-x-1');
    expect(httpRowName('')).toBe('request');
  });
});

describe('reading a script without running it', LOAD_GUARD, () => {
  it('tells regular expressions from divisions, and reads template literals with code inside', () => {
    const kinds = scanTokens('const r = /a\\/b[/]c/g; const d = a / b / c; const t = `x${`y${z}`}w`;').map((t) => `${t.kind}:${t.text}`);
    expect(kinds).toContain('regex:/a\\/b[/]c/g');
    expect(kinds.filter((k) => k === 'punct:/')).toHaveLength(2);
    expect(kinds).toContain('tpl:`x${`y${z}`}w`');
  });

  it('splits statements at semicolons and where JavaScript inserts them, blocks and all', () => {
    const src = 'const a = 1\nconst b = a\n  .toString()\nif (a) {\n  f()\n} else g()\nreturn\nx\nfor (;;) h(); i()';
    expect(statementsOf(scanScript(src)).map((s) => textOf(src, s))).toEqual(['const a = 1', 'const b = a\n  .toString()', 'if (a) {\n  f()\n} else g()', 'return', 'x', 'for (;;) h();', 'i()']);
  });

  it('a script nested deeper than the scanner reads, or with brackets that do not match, is a ConfigError naming the line', () => {
    const deep = `export default function () {\n${'['.repeat(100_000)}${']'.repeat(100_000)}\n}\n`;
    expect(() => convertK6Script(deep, { name: 'deep', script: 'deep.js' })).toThrow(ConfigError);
    expect(() => convertK6Script(deep, { name: 'deep', script: 'deep.js' })).toThrow(new RegExp(`deep\\.js:2: cannot be read as JavaScript: brackets and template literals are nested deeper than ${MAX_NESTING} levels`));
    expect(() => convertK6Script('export default function () {\n  http.get(\n}\n', { name: 'bad', script: 'bad.js' })).toThrow(/bad\.js:3: cannot be read as JavaScript: "}" closes the "\(" of line 2/);
  });

  it('long chains convert without exhausting the stack: 50,000 else-ifs, unbraced nestings, 5,000 helpers calling one another', () => {
    const chain = Array.from({ length: 50_000 }, (_, i) => `if (x === ${i}) sleep(1);`).join(' else ');
    const nested = `${'if (a) '.repeat(20_000)}sleep(1);`;
    const helpers = Array.from({ length: 5000 }, (_, i) => `function h${i}() { return ${i === 4999 ? "http.get('https://a.example/x')" : `h${i + 1}()`}; }`).join('\n');
    const src = `import http from 'k6/http';\nimport { sleep } from 'k6';\n${helpers}\nexport default function () {\n  const x = 1;\n  ${chain}\n  ${nested}\n  h0();\n}\n`;
    const c = convertK6Script(src, { name: 'chains', script: 'chains.js' });
    expect(c.notConverted).toEqual([]);
    expect(c.text).toContain('async function h0(vu: Vu) { return (await h1(vu)); }');
    expect(c.text).toContain("async function h4999(vu: Vu) { return k6Response(await vu.http(k6Request('GET', 'https://a.example/x', undefined, undefined, 'get-x'))); }");
    expect(c.text).toContain("if (x === 49999) await vu.sleep('1s');");
    expect(c.text).toContain("if (a) await vu.sleep('1s');");
  }, 60_000);

  it('a k6 script in TypeScript: typed functions, a typed options, type imports', async () => {
    const src = [
      "import http from 'k6/http';",
      "import { check } from 'k6';",
      "import type { Options } from 'k6/options';",
      "export const options: Options = { vus: 3, duration: '2s' };",
      'interface Setup { flowId: string }',
      'export function setup(): Setup {',
      '  return { flowId: http.get(`${__ENV.BASE_URL}/flows`).json(\'flows.0.id\') as string };',
      '}',
      'export default (data: Setup): void => {',
      '  const res = http.get(`${__ENV.BASE_URL}/flows/${data.flowId}`);',
      "  check(res, { 'found': (r) => r.status === 200 });",
      '};',
    ].join('\n');
    const c = convertK6Script(src, { name: 'typed', script: 'typed.ts' });
    expect(c.notConverted).toEqual([]);
    expect(c.text).toContain('async function setup(vu: Vu) {');
    expect(c.text).toContain('async function iteration(vu: Vu, data: Setup) {');
    expect(c.text).toContain('const res = k6Response(await vu.getFlow(data.flowId));');
    const path = join(dir, 'typed.ts');
    writeFileSync(path, c.text);
    expect(single(resolveRunPlan(await loadScenarioFile(path))).load).toMatchObject({ concurrency: 3, durationMs: 2000 });
  });

  it('a script with no function to run converts to a journey that says so', async () => {
    const c = convertK6Script("import http from 'k6/http';\nexport const options = { vus: 1, duration: '1s' };\n", { name: 'nothing', script: 'nothing.js' });
    expect(c.notConverted).toEqual(['the default function (the script has no such function)']);
    const path = join(dir, 'nothing.ts');
    writeFileSync(path, c.text);
    expect(single(resolveRunPlan(await loadScenarioFile(path))).load).toMatchObject({ concurrency: 1, durationMs: 1000 });
  });
});
