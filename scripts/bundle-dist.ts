// The package's JavaScript: src/ bundled by esbuild into dist/, one file per entry (the package's
// exports, the CLI, and the modules its threads start from), the code they share in
// dist/chunks/, dependencies left to node_modules. A run's first request came after Node's loader
// had resolved, read and linked ~400 files, one per source module: its own cost, ~0.1 s of every
// command's start-up on Node 20 and about a fifth of the CPU a short run spends. Types stay
// tsc's (dist/**/*.d.ts, `npm run build`, which runs this file with tsx). test/setup/compiled-cli.ts builds the suite's package
// with the same function, so the tests run what ships.
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * Modules that keep their own path under dist/: what package.json's `exports` and cjs/ name, the
 * CLI (bin/flowgauge.mjs), and what a thread is started from (bin/flowgauge-*.mjs, and the exit
 * guard a run's workers import first: src/core/package-root.ts's `packageModule`).
 */
export const ENTRIES: readonly string[] = [
  'index',
  'index-client',
  'index-scenario',
  'index-report',
  'index-reference-service',
  'cli/main',
  'cli/worker-exit-guard',
  'scenario/preflight-worker',
  'target/service-worker',
  'run/workers/run-worker',
];

/** Bundles `<root>/src` into `outdir` (usually `<root>/dist`). */
export async function bundleDist(root: string, outdir: string): Promise<void> {
  await build({
    entryPoints: ENTRIES.map((e) => ({ in: join(root, 'src', `${e}.ts`), out: e })),
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    chunkNames: 'chunks/[name]-[hash]',
    // Class and function names as written: errors and reports name them.
    keepNames: true,
    logLevel: 'warning',
  });
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
  await bundleDist(root, join(root, 'dist'));
}
