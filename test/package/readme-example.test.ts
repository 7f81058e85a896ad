/**
 * The README's scenario example is what a user copies first: it imports `flowgauge` by name
 * (never a path into a checkout), and, written to a file outside the repository as it stands,
 * it runs through the CLI and passes against the embedded service.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';

const dir = mkdtempSync(join(tmpdir(), 'fg-readme-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const readme = readFileSync('README.md', 'utf8');
const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];

describe("the README's scenario example", () => {
  it('imports flowgauge by name, as a user outside this repository would', () => {
    expect(example).toBeDefined();
    expect(example).toMatch(/^import \{ defineScenario \} from 'flowgauge';$/m);
    expect(example).not.toMatch(/from '\.{1,2}\//);
  });

  it('runs as written through the CLI and passes', async () => {
    const path = join(dir, 'readme-example.ts');
    writeFileSync(path, example ?? '');
    const io = memoryIo({ cwd: dir, env: {} });
    const out = join(dir, 'out');
    const code = await main(['run', path, '--duration', '2s', '--out', out, '--quiet'], io);
    expect(io.err()).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { verdict: string; load: { started: number } };
    expect(report.verdict).toBe('PASS');
    expect(report.load.started).toBeGreaterThan(20);
  }, 30_000);
});
