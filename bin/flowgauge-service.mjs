// The thread of the embedded reference service (the load generator's target when no --base-url
// is given), so the generator's lag is not the service's: the TypeScript sources through tsx in a
// checkout, the compiled dist/ in a package (as bin/flowgauge.mjs).
import { existsSync } from 'node:fs';
import nodeModule from 'node:module';

// The thread's code from V8's compile cache where Node has one (bin/flowgauge.mjs).
nodeModule.enableCompileCache?.();
const source = new URL('../src/target/service-worker.ts', import.meta.url);
if (existsSync(source)) {
  const { tsImport } = await import('tsx/esm/api');
  await tsImport(source.href, import.meta.url);
} else {
  await import(new URL('../dist/target/service-worker.js', import.meta.url).href);
}
