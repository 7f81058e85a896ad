/**
 * No dead code: every export of src/ is imported somewhere (the public entries, the CLI, tests,
 * bench or scenarios), and no file is unreachable. knip reads knip.json; `noUnusedLocals` in
 * tsconfig.json catches what is left once an export goes.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

describe('dead code', () => {
  it('knip finds no unused export, exported type or file', async () => {
    const r = await new Promise<{ code: number | null; out: string }>((done) => {
      const child = execFile(process.execPath, [resolve(ROOT, 'node_modules/knip/bin/knip.js'), '--include', 'exports,types,files', '--no-progress'], { cwd: ROOT }, (_e, stdout, stderr) =>
        done({ code: child.exitCode, out: `${stdout}${stderr}` }),
      );
    });
    expect(r.out.trim(), r.out).toBe('');
    expect(r.code).toBe(0);
  }, 120_000);
});
