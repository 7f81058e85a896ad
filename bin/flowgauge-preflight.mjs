// The throwaway thread that loads a scenario module once before the run does, under a deadline
// that holds against code that never returns: the TypeScript sources through tsx in a checkout,
// the compiled dist/ in a package (as bin/flowgauge.mjs).
import { existsSync } from 'node:fs';
import nodeModule from 'node:module';

// The thread's code from V8's compile cache where Node has one (bin/flowgauge.mjs).
nodeModule.enableCompileCache?.();
const source = new URL('../src/scenario/preflight-worker.ts', import.meta.url);
if (existsSync(source)) {
  const { tsImport } = await import('tsx/esm/api');
  await tsImport(source.href, import.meta.url);
} else {
  await import(new URL('../dist/scenario/preflight-worker.js', import.meta.url).href);
}
