/**
 * Vitest global setup: compiles src/ once, before any test file, into a throwaway package root
 * laid out as the published package (bin/, dist/, cjs/, scenarios/, package.json, and the
 * checkout's node_modules), so that the CLIs the tests spawn start from JavaScript instead of
 * compiling the sources through tsx in every process and in each of its threads (the embedded
 * service's, the scenario preflight's, a worker's): measured at ~2.5 s less per `flowgauge run`
 * on two cores. It is bundled as the package is (scripts/bundle-dist.ts: a few seconds, no type
 * check; `npm test` type-checks first).
 *
 * Tests reach it through `CLI_BIN` (test/reliability/cli-process.ts). Tests about the
 * checkout's own start-up (bin/flowgauge.mjs running src/ through tsx) keep spawning that file;
 * `FLOWGAUGE_TEST_FROM_SOURCE=1` sends every spawned CLI through the sources, as before.
 *
 * It also measures how long this machine takes, now, to start that CLI (`FLOWGAUGE_TEST_START_UP_MS`),
 * which `scaledMs` uses to stretch the guards against hangs on a busy machine.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bundleDist } from '../../scripts/bundle-dist.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** Builds the package root; returns its bin/flowgauge.mjs. */
async function buildPackageRoot(root: string): Promise<string> {
  for (const d of ['bin', 'cjs', 'scenarios']) cpSync(join(ROOT, d), join(root, d), { recursive: true });
  copyFileSync(join(ROOT, 'package.json'), join(root, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
  await bundleDist(ROOT, join(root, 'dist'));
  return join(root, 'bin', 'flowgauge.mjs');
}

/** Milliseconds `bin schema scenario` takes (loads the CLI, yargs and zod): the machine's start-up now. */
function measureStartUp(bin: string): number {
  const t0 = performance.now();
  execFileSync(process.execPath, [bin, 'schema', 'scenario'], { stdio: 'ignore' });
  return Math.round(performance.now() - t0);
}

export default async function setup(): Promise<() => void> {
  let root: string | undefined;
  let bin = join(ROOT, 'bin', 'flowgauge.mjs');
  if (process.env.FLOWGAUGE_TEST_FROM_SOURCE !== '1') {
    root = mkdtempSync(join(tmpdir(), 'fg-test-cli-'));
    bin = await buildPackageRoot(root);
    process.env.FLOWGAUGE_TEST_BIN = bin;
  }
  process.env.FLOWGAUGE_TEST_START_UP_MS ??= String(measureStartUp(bin));
  return () => {
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
  };
}
