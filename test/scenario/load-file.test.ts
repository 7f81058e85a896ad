import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, FlowgaugeError } from '../../src/core/errors.js';
import { loadScenario, loadScenarioFile, readDataFile } from '../../src/scenario/index.js';

const scenario = {
  name: 'from-file',
  tier: 'free',
  load: { rate: '100%', duration: '10s' },
  mix: [{ op: 'run', input: 'hello' }],
};

let dir = '';
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flowgauge-scenario-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('loadScenarioFile', () => {
  it('reads a .ts file through tsx, type annotations and all', async () => {
    const path = file(
      'typed.ts',
      `interface S { name: string }\nconst s: S & Record<string, unknown> = ${JSON.stringify(scenario)};\nexport default s;\n`,
    );
    expect(await loadScenarioFile(path)).toEqual(scenario);
  });

  it('reads a .mts file that imports defineScenario from the source tree', async () => {
    const index = pathToFileURL(resolve('src/scenario/index.ts')).href;
    const path = file(
      'defined.mts',
      `import { defineScenario } from ${JSON.stringify(index)};\nexport default defineScenario(${JSON.stringify(scenario)});\n`,
    );
    const s = await loadScenario(path);
    expect(s.name).toBe('from-file');
    expect(s.source).toBe(path);
    expect(s.load).toMatchObject({ ratePerS: 100 / 60, durationMs: 10_000 });
  });

  it("resolves `import … from 'flowgauge'` to this package in a file anywhere on disk (.ts, .mjs, with a sibling module)", async () => {
    file('helper.ts', `export const flowsQuery: { limit: number } = { limit: 2 };\n`);
    const ts = file(
      'anywhere.ts',
      `import { defineScenario, type Vu } from 'flowgauge';\nimport { flowsQuery } from './helper.js';\n` +
        `export default defineScenario({ name: 'anywhere', tier: 'pro', load: { rate: '1/s', duration: '1s' }, journey: async (vu: Vu) => { await vu.listFlows(flowsQuery); } });\n`,
    );
    const s = await loadScenario(ts);
    expect(s.name).toBe('anywhere');
    expect(typeof s.journey).toBe('function');
    const mjs = file('anywhere.mjs', `import { defineScenario } from 'flowgauge';\nexport default defineScenario(${JSON.stringify(scenario)});\n`);
    expect((await loadScenario(mjs)).name).toBe('from-file');
  });

  it('reads a .ts file anew after it changed', async () => {
    const path = file('changing.ts', `export default ${JSON.stringify({ ...scenario, name: 'first' })};\n`);
    expect(await loadScenarioFile(path)).toMatchObject({ name: 'first' });
    writeFileSync(path, `export default ${JSON.stringify({ ...scenario, name: 'second' })};\n`);
    expect(await loadScenarioFile(path)).toMatchObject({ name: 'second' });
  });

  it('reads a named `scenario` export from .mjs and a .js default export', async () => {
    const named = file('named.mjs', `export const scenario = ${JSON.stringify(scenario)};\n`);
    expect(await loadScenarioFile(named)).toEqual(scenario);
    const dflt = file('plain.mjs', `export default ${JSON.stringify({ ...scenario, name: 'js' })};\n`);
    expect(await loadScenarioFile(dflt)).toMatchObject({ name: 'js' });
  });

  it('reads .json and .yaml files', async () => {
    expect(await loadScenarioFile(file('s.json', JSON.stringify(scenario)))).toEqual(scenario);
    const yaml = [
      'name: from-file',
      'tier: free',
      'load:',
      '  rate: 100%',
      '  duration: 10s',
      'mix:',
      '  - op: run',
      '    input: hello',
      '',
    ].join('\n');
    expect(await loadScenarioFile(file('s.yaml', yaml))).toEqual(scenario);
    expect(await loadScenarioFile(file('s.yml', yaml))).toEqual(scenario);
  });

  it('names the path of a missing file with FG_FILE_NOT_FOUND', async () => {
    const path = join(dir, 'nope.ts');
    const err = await rejection(loadScenarioFile(path));
    expect(err).toBeInstanceOf(FlowgaugeError);
    expect((err as FlowgaugeError).code).toBe('FG_FILE_NOT_FOUND');
    expect((err as Error).message).toContain(path);
    const dirErr = await rejection(loadScenarioFile(dir));
    expect((dirErr as FlowgaugeError).code).toBe('FG_FILE_NOT_FOUND');
  });

  it('turns syntax errors into a ConfigError carrying the parser message', async () => {
    const ts = await rejection(loadScenarioFile(file('broken.ts', 'export default { name: "x", \n')));
    expect(ts).toBeInstanceOf(ConfigError);
    expect((ts as ConfigError).issues[0]?.path).toContain('broken.ts');
    expect((ts as ConfigError).message).toMatch(/could not load/);

    const json = await rejection(loadScenarioFile(file('broken.json', '{ "name": ')));
    expect(json).toBeInstanceOf(ConfigError);
    expect((json as ConfigError).message).toMatch(/invalid JSON/);

    const yaml = await rejection(loadScenarioFile(file('broken.yaml', 'name: [unclosed\n')));
    expect(yaml).toBeInstanceOf(ConfigError);
    expect((yaml as ConfigError).message).toMatch(/invalid YAML/);
  });

  it('rejects modules without a scenario export and unsupported extensions', async () => {
    const none = await rejection(loadScenarioFile(file('none.mjs', 'export const other = 1;\n')));
    expect(none).toBeInstanceOf(ConfigError);
    expect((none as Error).message).toMatch(/export default defineScenario/);
    const txt = await rejection(loadScenarioFile(file('s.txt', 'hello')));
    expect(txt).toBeInstanceOf(ConfigError);
    expect((txt as Error).message).toMatch(/unsupported file type ".txt"/);
  });

  it('passes a file that loads but is invalid on to resolve, which names the source', async () => {
    const path = file('invalid.json', JSON.stringify({ ...scenario, tier: 'gold' }));
    const err = await rejection(loadScenario(path));
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).issues.map((i) => i.path)).toEqual(['tier']);
    expect((err as Error).message).toContain('invalid.json');
  });
});

describe('${NAME} in JSON and YAML scenarios', () => {
  it('fills references from the environment, with defaults, typed when the whole field is one', async () => {
    const path = file(
      'env.yaml',
      'name: env\ntier: pro\nload:\n  executor: constant-concurrency\n  concurrency: ${VUS}\n  duration: ${DURATION:-5s}\nmix:\n  - op: run\n    input: "hello ${WHO}, costs $${5}"\n',
    );
    const raw = await loadScenarioFile(path, { env: { VUS: '12', WHO: 'world' } });
    expect(raw).toEqual({
      name: 'env',
      tier: 'pro',
      load: { executor: 'constant-concurrency', concurrency: 12, duration: '5s' },
      mix: [{ op: 'run', input: 'hello world, costs ${5}' }],
    });
  });

  it('names every unset reference by its path', async () => {
    const path = file('unset.json', JSON.stringify({ ...scenario, load: { rate: '${RATE}', duration: '${DURATION}' } }));
    const err = await rejection(loadScenarioFile(path, { env: {} }));
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).issues).toEqual([
      { path: 'load.rate', message: '${RATE} is not set: give -e RATE=… (or set it in the environment), or write ${RATE:-default}' },
      { path: 'load.duration', message: '${DURATION} is not set: give -e DURATION=… (or set it in the environment), or write ${DURATION:-default}' },
    ]);
  });
});

describe('scenario modules that misbehave', () => {
  it('a module whose top-level await never settles is refused at its load deadline', async () => {
    const path = file('never.mjs', 'await new Promise(() => {});\nexport default {};\n');
    const err = await rejection(loadScenarioFile(path, { loadTimeoutMs: 300 }));
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).issues[0]?.message).toBe('did not finish loading within 0.3 s (a top-level await that never settles?)');
  });

  it('a scenario whose getter throws is a ConfigError naming what it threw', async () => {
    const path = file('getter.mjs', "export default { get name() { throw new Error('boom'); }, tier: 'pro' };\n");
    const err = await rejection(loadScenario(path));
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).issues[0]?.message).toBe('reading the scenario threw: boom');
    const exported = file('export-getter.mjs', "export const scenario = 1;\nObject.defineProperty(globalThis, 'x', {});\nexport default new Proxy({}, { get() { throw new Error('trap'); } });\n");
    const e2 = await rejection(loadScenario(exported));
    expect(e2).toBeInstanceOf(ConfigError);
  });
});

describe('hostile scenario files (refused with a ConfigError naming the file and the limit, never a crash or a hang)', () => {
  const configError = async (p: Promise<unknown>): Promise<ConfigError> => {
    const err = await rejection(p);
    expect(err, String(err)).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  };

  it('a default export that never settles, with a live timer in the module, is refused at the deadline', async () => {
    const path = file('never-settles.ts', 'setInterval(() => {}, 1000);\nexport default new Promise(() => {});\n');
    const err = await configError(loadScenarioFile(path, { loadTimeoutMs: 300 }));
    expect(err.issues[0]?.path).toBe(path);
    expect(err.issues[0]?.message).toMatch(/^its export did not settle within 0\.3 s/);
  });

  it('an exported promise that resolves is the scenario', async () => {
    const path = file('later.mjs', `export default Promise.resolve(${JSON.stringify(scenario)});\n`);
    expect(await loadScenarioFile(path)).toEqual(scenario);
  });

  it('a rejected default export names the rejection and where it came from', async () => {
    const path = file('rejects.ts', "const why: string = 'no scenario today';\nexport default Promise.reject(new Error(why));\n");
    const err = await configError(loadScenarioFile(path));
    expect(err.issues[0]?.message).toBe(`its export rejected: no scenario today (at ${path}:2:31)`);
  });

  it('a top-level throw in .ts and .js names the error and the file:line of the TypeScript source', async () => {
    const ts = file('throws-here.ts', "interface X { a: number }\nconst x: X = { a: 1 };\nif (x.a === 1) throw new Error('boom at import');\nexport default {};\n");
    expect((await configError(loadScenarioFile(ts))).issues[0]?.message).toBe(`could not load: boom at import (at ${ts}:3:22)`);
    const js = file('throws-here.mjs', "const a = 1;\nthrow new TypeError('bad ' + a);\nexport default {};\n");
    expect((await configError(loadScenarioFile(js))).issues[0]?.message).toBe(`could not load: bad 1 (at ${js}:2:7)`);
    // A throw in a module the scenario imports is placed in that module.
    file('helper-throws.ts', "export function make(): never {\n  throw new Error('from the helper');\n}\n");
    const via = file('imports-thrower.ts', "import { make } from './helper-throws.js';\nexport default make();\n");
    expect((await configError(loadScenarioFile(via))).issues[0]?.message).toBe(`could not load: from the helper (at ${join(dir, 'helper-throws.ts')}:2:9)`);
  });

  it('a file over the size limit is refused from its size, before it is read (a sparse 1 GB file)', async () => {
    for (const name of ['huge.json', 'huge.ts']) {
      const path = join(dir, name);
      truncateSync((writeFileSync(path, ''), path), 1024 ** 3);
      const err = await configError(loadScenarioFile(path));
      expect(err.issues[0]?.message).toBe('scenario file is 1073741824 bytes (1 GiB); the limit is 16 MiB');
    }
  });

  it.each([
    ['a JSON array nested 2,000,000 deep', 'deep.json', '['.repeat(2_000_000) + ']'.repeat(2_000_000)],
    ['a JSON object nested 100 deep in a scenario', 'deep-field.json', `{"name":"x","mix":[{"op":"run","input":${'{"a":'.repeat(100)}1${'}'.repeat(100)}}]}`],
    ['a YAML flow sequence nested 2,000,000 deep', 'deep-flow.yaml', '['.repeat(2_000_000) + ']'.repeat(2_000_000)],
    ['YAML "- " nested 2,000,000 deep on one line', 'deep-dash.yaml', '- '.repeat(2_000_000) + 'x\n'],
    ['a YAML block mapping nested 2,000 deep', 'deep-block.yaml', Array.from({ length: 2000 }, (_, i) => `${' '.repeat(i)}a:`).join('\n') + ' 1\n'],
  ])('%s is refused at 64 levels', async (_name, name, text) => {
    const err = await configError(loadScenarioFile(file(name, text)));
    expect(err.message).toMatch(/nested deeper than 64 levels of arrays and objects; the limit is 64/);
    expect(err.message).not.toMatch(/call stack/);
  });

  it('a real scenario with block scalars and flow maps is not counted too deep', async () => {
    const yaml = 'name: blocks\ntier: pro\nload: { rate: "1/s", duration: "1s" }\nmix:\n  - op: run\n    input: |\n' + Array.from({ length: 200 }, (_, i) => `      ${' '.repeat(i)}line ${i}`).join('\n') + '\n';
    expect(await loadScenarioFile(file('blocks.yaml', yaml))).toMatchObject({ name: 'blocks', mix: [{ op: 'run' }] });
  });

  it.each(['__proto__', 'constructor', 'prototype'])('the key %s is refused with its path (JSON and YAML)', async (key) => {
    const json = `{"name":"x","tier":"pro","load":{"rate":"1/s","duration":"1s"},"mix":[{"op":"run","${key}":{"input":"inherited"}}]}`;
    const e1 = await configError(loadScenarioFile(file(`proto-${key}.json`, json)));
    expect(e1.issues).toEqual([{ path: `mix[0].${key}`, message: expect.stringContaining(`the key "${key}" is not allowed`) }]);
    const e2 = await configError(loadScenarioFile(file(`proto-${key}.yaml`, `name: x\nmix:\n  - op: run\n    ${key}:\n      input: inherited\n`)));
    expect(e2.issues[0]?.path).toBe(`mix[0].${key}`);
  });

  it('a string field beyond 1 MiB is refused naming the field and the limit; a name beyond 63 characters too', async () => {
    const big = JSON.stringify({ ...scenario, name: 'a'.repeat(2 * 1024 * 1024) });
    const err = await configError(loadScenarioFile(file('long-name.json', big)));
    expect(err.issues).toEqual([{ path: 'name', message: 'is a string of 2097152 characters; the limit is 1048576' }]);
    expect(err.message.length).toBeLessThan(500);
    const ts = file('long-name.ts', `export default { ...${JSON.stringify(scenario)}, name: 'a'.repeat(50_000_000) };\n`);
    const e2 = await configError(loadScenario(ts));
    expect(e2.issues).toEqual([{ path: 'name', message: 'must be at most 63 characters' }]);
    expect(e2.message.length).toBeLessThan(500);
  });

  it('a FIFO, as a scenario or a data file, is refused without being opened', async () => {
    const fifo = join(dir, 'pipe.json');
    execFileSync('mkfifo', [fifo]);
    const err = await configError(loadScenarioFile(fifo));
    expect(err.issues[0]?.message).toBe('is a FIFO (named pipe); give a regular file');
    const data = await configError(readDataFile(fifo));
    expect(data.issues[0]?.message).toBe('is a FIFO (named pipe); give a regular file');
    const dev = await configError(loadScenarioFile('/dev/zero'));
    expect(dev.issues[0]?.message).toBe('is a device; give a regular file');
  });
});

describe('k6 scripts are told apart before they run', () => {
  it('an ESM import, export-from, require or dynamic import of k6: a ConfigError saying what the file is and the command that converts it', async () => {
    const marker = join(dir, 'k6-ran');
    const sideEffect = `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran');\n`;
    const forms: [string, string, string, number][] = [
      ['esm.js', `import http from 'k6/http';\nimport { sleep } from 'k6';\nexport default function () { http.get('https://test.k6.io'); sleep(1); }\n`, 'k6/http', 1],
      ['cjs.cjs', `${sideEffect}const { check } = require("k6");\nmodule.exports.default = function () {};\n`, 'k6', 2],
      ['typed.ts', `// a k6 script in TypeScript\nimport { Options } from 'k6/options';\nexport const options: Options = { vus: 1 };\nexport default function (): void {}\n`, 'k6/options', 2],
      ['reexport.mjs', `export { default } from 'k6/http';\n`, 'k6/http', 1],
      ['dynamic.mjs', `const ws = await import('k6/ws');\nexport default ws;\n`, 'k6/ws', 1],
    ];
    for (const [name, text, module, line] of forms) {
      const err = await rejection(loadScenarioFile(file(name, text)));
      expect(err, name).toBeInstanceOf(ConfigError);
      const message = (err as ConfigError).message;
      expect(message).toContain(`is a k6 script (it imports '${module}' on line ${line}); flowgauge runs its own scenario format`);
      expect(message).toContain(`flowgauge new --from-k6 ${join(dir, name)}`);
      expect(message).toContain(`writes ${name.replace(/\..*$/, '')}.ts`);
      expect(message).not.toMatch(/Cannot find module|require stack|\n\s+at /);
    }
    // Detected from the text: the script's own code never ran.
    const { existsSync } = await import('node:fs');
    expect(existsSync(marker)).toBe(false);
  });

  it('k6 named in a comment or a string is no import: the scenario loads', async () => {
    const path = file('mentions-k6.ts', `// converted from: import http from 'k6/http'\nconst note = "require('k6')";\nexport default { ...${JSON.stringify(scenario)}, description: note };\n`);
    expect(await loadScenarioFile(path)).toEqual({ ...scenario, description: "require('k6')" });
  });
});
