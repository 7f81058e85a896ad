/**
 * The library's public names, locked: a change to the API is a visible diff here, each name is
 * documented in docs/api.md, and each subpath in package.json `exports` is exactly its slice.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as main from '../../src/index.js';
import * as client from '../../src/index-client.js';
import * as referenceService from '../../src/index-reference-service.js';
import * as report from '../../src/index-report.js';
import * as scenario from '../../src/index-scenario.js';

const SUBPATHS = {
  './scenario': { module: scenario, names: ['defineScenario', 'loadScenario', 'loadScenarioFile', 'resolveRunPlan', 'resolveScenario'] },
  './client': { module: client, names: ['ApiError', 'TransportError', 'createClient'] },
  './report': { module: report, names: ['REPORT_JSON_SCHEMA', 'compareReports', 'mergeReports', 'parseRegressionRules', 'readReport', 'renderHtml', 'renderMarkdown', 'renderSummary'] },
  './reference-service': { module: referenceService, names: ['startReferenceService'] },
} as const;

const MAIN_ONLY = ['createProbeRunner', 'executeRun'];

const sorted = (names: readonly string[]): string[] => [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** The type names an entry file exports (`export type { … }`), from its source. */
function typeNames(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/export type \{([^}]*)\}/g)].flatMap((m) => (m[1] as string).split(',').map((s) => s.trim()).filter((s) => s !== ''));
}

describe('the public API', () => {
  it("'flowgauge' is exactly the designed list of names: every subpath's, plus executeRun and the probe runner", () => {
    const all = [...Object.values(SUBPATHS).flatMap((s) => s.names), ...MAIN_ONLY];
    expect(sorted(Object.keys(main))).toEqual(sorted(all));
  });

  it.each(Object.entries(SUBPATHS))('%s exports exactly its slice, the same objects as the main entry', (_path, { module, names }) => {
    expect(sorted(Object.keys(module))).toEqual(sorted(names));
    for (const name of names) expect((module as Record<string, unknown>)[name]).toBe((main as Record<string, unknown>)[name]);
  });

  it('package.json exports each subpath from its built entry, types first', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { exports: Record<string, unknown> };
    const entries: Record<string, string> = { '.': 'index', './scenario': 'index-scenario', './client': 'index-client', './report': 'index-report', './reference-service': 'index-reference-service' };
    for (const [path, file] of Object.entries(entries)) {
      const target = pkg.exports[path] as Record<string, string> | undefined;
      // require: the CommonJS shim that hands over the ES module (require(esm)) or names import(); default for any other condition.
      expect(target, path).toEqual({ types: `./dist/${file}.d.ts`, import: `./dist/${file}.js`, require: `./cjs/${file}.cjs`, default: `./dist/${file}.js` });
      expect(Object.keys(target ?? {})[0]).toBe('types');
    }
    expect(sorted(Object.keys(pkg.exports))).toEqual(sorted([...Object.keys(entries), './package.json']));
  });

  it("docs/api.md's examples import only names their entry exports", () => {
    const doc = readFileSync('docs/api.md', 'utf8');
    const entries: Record<string, object> = { flowgauge: main, ...Object.fromEntries(Object.entries(SUBPATHS).map(([path, s]) => [`flowgauge${path.slice(1)}`, s.module])) };
    const imports = [...doc.matchAll(/import \{([^}]*)\} from '(flowgauge[^']*)'/g)];
    expect(imports.length).toBeGreaterThan(3);
    for (const [, names, from] of imports) {
      const entry = entries[from as string];
      expect(entry, from).toBeDefined();
      const values = (names as string).split(',').map((n) => n.trim()).filter((n) => /^[A-Za-z_]\w*$/.test(n));
      for (const name of values) expect(Object.keys(entry ?? {}), `${name} from ${from}`).toContain(name);
    }
  });

  it('documents every value and type name in docs/api.md', () => {
    const doc = readFileSync('docs/api.md', 'utf8');
    const files = ['src/index.ts', 'src/index-scenario.ts', 'src/index-client.ts', 'src/index-report.ts', 'src/index-reference-service.ts'];
    const types = files.flatMap(typeNames);
    expect(types.length).toBeGreaterThan(20);
    const missing = [...Object.keys(main), ...types].filter((name) => !new RegExp(`\`${name}[\`(<]`).test(doc));
    expect(missing).toEqual([]);
  });
});
