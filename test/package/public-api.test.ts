/**
 * The library's public names, locked: a change to the API is a visible diff here, and each name
 * is documented in docs/api.md.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as flowgauge from '../../src/index.js';

const PUBLIC = [
  'ApiError',
  'REPORT_JSON_SCHEMA',
  'TransportError',
  'compareReports',
  'createClient',
  'createProbeRunner',
  'defineScenario',
  'executeRun',
  'loadScenario',
  'loadScenarioFile',
  'mergeReports',
  'renderHtml',
  'renderMarkdown',
  'renderSummary',
  'resolveRunPlan',
  'resolveScenario',
  'startReferenceService',
];

describe('the public API', () => {
  it('is exactly the designed list of names', () => {
    expect(Object.keys(flowgauge).sort()).toEqual(PUBLIC);
  });

  it('documents every name in docs/api.md', () => {
    const doc = readFileSync('docs/api.md', 'utf8');
    const types = [...readFileSync('src/index.ts', 'utf8').matchAll(/export type \{([^}]*)\}/g)].flatMap((m) => (m[1] as string).split(',').map((s) => s.trim()).filter((s) => s !== ''));
    for (const name of [...PUBLIC, ...types]) expect(doc, name).toMatch(new RegExp(`\`${name}[\`(]`));
  });
});
