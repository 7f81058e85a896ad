/**
 * docs/report-json.md documents every field of report.json: each property the report@1 JSON
 * Schema names, and each field a real run's report carries in its fixed-shape sections, must
 * have its row (a Pct's own members are documented once, as Pct).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { REPORT_JSON_SCHEMA } from '../../src/report/index.js';
import { stepsJourneyYaml } from '../report/steps-journey.js';

type Schema = { [key: string]: unknown; properties?: Record<string, Schema>; additionalProperties?: unknown; items?: Schema; anyOf?: Schema[] };

const doc = readFileSync('docs/report-json.md', 'utf8');
/** Every `path` written in the first column of a table row, with map keys as `<…>`. */
const documented = new Set([...doc.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => (m[1] as string).replace(/<[^>]+>/g, '<>')));

const PCT = ['p50', 'p90', 'p95', 'p99', 'p999', 'max', 'mean', 'count'];
const isPct = (s: Schema): boolean => s.properties !== undefined && PCT.every((k) => k in (s.properties ?? {})) && Object.keys(s.properties).length === PCT.length;

function schemaPaths(s: Schema, path: string, out: Set<string>): void {
  if (isPct(s)) return;
  for (const alt of s.anyOf ?? []) schemaPaths(alt, path, out);
  for (const [key, sub] of Object.entries(s.properties ?? {})) {
    const p = path === '' ? key : `${path}.${key}`;
    out.add(p);
    schemaPaths(sub, p, out);
  }
  if (s.items !== undefined) schemaPaths(s.items, `${path}[]`, out);
  if (typeof s.additionalProperties === 'object' && s.additionalProperties !== null) {
    const sub = s.additionalProperties as Schema;
    if (sub.properties !== undefined && !isPct(sub)) {
      out.add(`${path}.<>`);
      schemaPaths(sub, `${path}.<>`, out);
    }
  }
}

const dir = mkdtempSync(join(tmpdir(), 'fg-report-doc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('docs/report-json.md', () => {
  it('has a row for every property of the report@1 JSON Schema', () => {
    const paths = new Set<string>();
    schemaPaths(REPORT_JSON_SCHEMA as Schema, '', paths);
    expect(paths.size).toBeGreaterThan(150);
    const missing = [...paths].filter((p) => !documented.has(p));
    expect(missing).toEqual([]);
  });

  it('has a row for every field of a real report with journeys, steps and checks', async () => {
    const file = join(dir, 'doc-check.yaml');
    writeFileSync(
      file,
      stepsJourneyYaml('doc-check', '1s'),
    );
    const out = join(dir, 'out');
    const code = await main(['run', file, '--out', out, '--quiet'], memoryIo({ cwd: dir, env: {} }));
    expect(code).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Record<string, unknown>;
    expect(report['iterations']).toBeDefined();
    const fixed = ['load', 'stream', 'rateLimit', 'slo', 'iterations', 'contractViolationTotals', 'audit'];
    const fields = Object.keys(report);
    for (const section of fixed) {
      const value = report[section];
      if (typeof value === 'object' && value !== null) fields.push(...Object.keys(value).map((k) => `${section}.${k}`));
    }
    const missing = fields.filter((f) => !documented.has(f));
    expect(missing).toEqual([]);
  }, 30_000);
});
