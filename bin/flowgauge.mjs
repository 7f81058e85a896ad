#!/usr/bin/env node
// Runs the TypeScript sources through tsx in a checkout, the compiled dist/ in a package.
import { existsSync } from 'node:fs';

const source = new URL('../src/cli/main.ts', import.meta.url);
if (existsSync(source)) {
  const { tsImport } = await import('tsx/esm/api');
  const { cli } = await tsImport(source.href, import.meta.url);
  await cli();
} else {
  const { cli } = await import(new URL('../dist/cli/main.js', import.meta.url).href);
  await cli();
}
