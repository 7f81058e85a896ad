/**
 * For test files that run the CLI in-process (`main` from src/): the threads a run starts — the
 * scenario's pre-flight, the embedded service, a run's workers — start from the compiled package
 * of test/setup/compiled-cli.ts, as the CLIs the tests spawn do, instead of compiling the sources
 * through tsx in each new thread. bin/flowgauge-preflight.mjs from the sources cost ~3 s of CPU
 * per run on two cores (its own tsx, then the scenario's `flowgauge` import, all of src/ again),
 * most of what a run of a second or two costs; from the compiled package about half of that. The
 * code is the same (esbuild only strips the types); the choice between the two in bin/ is
 * tested where it is the point (the checkout's own start-up, test/scenario/load-preflight.test.ts).
 *
 * Every test file gets it through the setup file `threads-from-dist-everywhere.ts`. With `FLOWGAUGE_TEST_FROM_SOURCE=1` (no compiled package) the threads are left as they are.
 */
import { pathToFileURL } from 'node:url';
import type * as WorkerThreads from 'node:worker_threads';

const CHECKOUT = new URL('../../', import.meta.url).href;

/** `node:worker_threads` with `Worker` sending the checkout's bin/ and src/ to the compiled package's. */
export function threadsFromDist(original: typeof WorkerThreads): typeof WorkerThreads {
  const bin = process.env.FLOWGAUGE_TEST_BIN;
  if (bin === undefined || process.env.FLOWGAUGE_TEST_FROM_SOURCE === '1') return original;
  const root = new URL('../', pathToFileURL(bin)).href;
  /** A checkout URL to the compiled package's: bin/ as it is, src/x.ts to dist/x.js; anything else unchanged. */
  const compiled = (href: string): string => {
    if (href.startsWith(`${CHECKOUT}bin/`)) return root + href.slice(CHECKOUT.length);
    if (href.startsWith(`${CHECKOUT}src/`) && href.endsWith('.ts')) return `${root}dist/${href.slice(`${CHECKOUT}src/`.length, -'.ts'.length)}.js`;
    return href;
  };
  class Worker extends original.Worker {
    constructor(entry: string | URL, options?: WorkerThreads.WorkerOptions) {
      const data = options?.workerData as { setup?: unknown } | undefined;
      // A run's worker imports the CLI's setup module (its exit guard) first: the compiled one too.
      const workerData = data !== null && typeof data === 'object' && typeof data.setup === 'string' ? { ...data, setup: compiled(data.setup) } : options?.workerData;
      super(entry instanceof URL && entry.protocol === 'file:' ? new URL(compiled(entry.href)) : entry, { ...options, workerData });
    }
  }
  // The module's default export (its namespace, for `import wt from 'node:worker_threads'`) too.
  const namespace = (original as { default?: object }).default;
  return { ...original, Worker, default: { ...namespace, Worker } } as typeof WorkerThreads;
}
