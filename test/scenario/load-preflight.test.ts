/**
 * The pre-flight's deadline is the module's own: it starts when the thread, its own code loaded,
 * begins the import. A stand-in entry holds the thread busy for longer than the deadline before
 * it loads the real one (as tsx loading the sources does on a starved machine): a module that
 * loads is let through, a module that never settles is still refused, named as waiting.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preflightModule } from '../../src/scenario/load-preflight.js';
import { scaledMs } from '../reliability/cli-process.js';

const REAL_ENTRY = new URL('../../bin/flowgauge-preflight.mjs', import.meta.url);
/** The module's deadline, stretched as start-up is (the import itself counts). */
const DEADLINE_MS = scaledMs(1500);
/** The thread's own loading, before the import: longer than the deadline. */
const SLOW_START_MS = DEADLINE_MS + 1000;

let dir: string;
let slowEntry: URL;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-preflight-'));
  const entry = join(dir, 'slow-entry.mjs');
  // Busy, not waiting: no timer of the main thread's can tell it from the thread's own loading.
  writeFileSync(entry, `const end = Date.now() + ${SLOW_START_MS};\nwhile (Date.now() < end) {}\nawait import(${JSON.stringify(REAL_ENTRY.href)});\n`);
  slowEntry = pathToFileURL(entry);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('the pre-flight deadline', () => {
  it("does not count the thread's own loading: a module that loads comes back, past a slow start", async () => {
    const file = write('fine.mjs', "export default { name: 'fine' };\n");
    await expect(preflightModule(file, DEADLINE_MS, slowEntry)).resolves.toEqual({ kind: 'came-back', ok: true });
  }, 60_000);

  it('still refuses a module that never settles, as waiting, after the same slow start', async () => {
    const file = write('never.mjs', 'await new Promise(() => {});\nexport default {};\n');
    await expect(preflightModule(file, DEADLINE_MS, slowEntry)).resolves.toEqual({ kind: 'timed-out', busy: false });
  }, 60_000);

  it('says a module that throws came back, not loaded', async () => {
    const file = write('throws.mjs', "throw new Error('no');\n");
    await expect(preflightModule(file, DEADLINE_MS)).resolves.toEqual({ kind: 'came-back', ok: false });
  }, 60_000);
});
