#!/usr/bin/env node
// Runs the TypeScript sources through tsx in a checkout, the compiled dist/ in a package.
import { existsSync } from 'node:fs';
import nodeModule from 'node:module';

// Overwrite the command line at once: `--token …` must not sit in /proc/<pid>/cmdline while the
// CLI loads (cli() then sets a title with secret values masked).
process.title = 'flowgauge';
// Node 22.1 and later keep V8's compiled code between runs (in the OS temp directory, Node's
// own default): about 40 ms of a run's start-up. Node 20 has no such cache.
nodeModule.enableCompileCache?.();

try {
  const source = new URL('../src/cli/main.ts', import.meta.url);
  if (existsSync(source)) {
    const { tsImport } = await import('tsx/esm/api');
    const { cli } = await tsImport(source.href, import.meta.url);
    await cli();
  } else {
    const { cli } = await import(new URL('../dist/cli/main.js', import.meta.url).href);
    await cli();
  }
} catch (err) {
  // flowgauge could not even load (a module it cannot read, a cache it cannot write): 70, never
  // node's 1, which schedulers read as "a check failed, recorded" (docs/probes.md).
  process.stderr.write(`flowgauge: could not start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 70;
}
