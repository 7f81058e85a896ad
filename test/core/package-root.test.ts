import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FROM_SOURCE, PACKAGE_ROOT, packageFile, packageModule, packageRootOf } from '../../src/core/package-root.js';

describe('package-root', () => {
  it('finds the root from a source module, a compiled one and a bundled chunk alike', () => {
    expect(packageRootOf('file:///work/fg/src/core/package-root.ts').href).toBe('file:///work/fg/');
    expect(packageRootOf('file:///work/fg/src/run/workers/run-in-workers.ts?tsx-namespace=1').href).toBe('file:///work/fg/');
    expect(packageRootOf('file:///usr/lib/node_modules/flowgauge/dist/cli/main.js').href).toBe('file:///usr/lib/node_modules/flowgauge/');
    expect(packageRootOf('file:///usr/lib/node_modules/flowgauge/dist/chunks/chunk-N6EANS3P.js').href).toBe('file:///usr/lib/node_modules/flowgauge/');
    expect(packageRootOf('file:///usr/lib/node_modules/flowgauge/dist/index.js').href).toBe('file:///usr/lib/node_modules/flowgauge/');
  });

  it("takes the package's own src/ or dist/, the last in the path, not a directory above it of the same name", () => {
    expect(packageRootOf('file:///home/me/src/flowgauge/src/cli/main.ts').href).toBe('file:///home/me/src/flowgauge/');
    expect(packageRootOf('file:///srv/dist/app/node_modules/flowgauge/dist/chunks/x.js').href).toBe('file:///srv/dist/app/node_modules/flowgauge/');
    expect(packageRootOf('file:///a%20b/flowgauge/dist/chunks/x.js').href).toBe('file:///a%20b/flowgauge/');
  });

  it("names this checkout's files from its sources", () => {
    expect(FROM_SOURCE).toBe(true);
    expect(existsSync(fileURLToPath(packageFile('package.json')))).toBe(true);
    expect(existsSync(fileURLToPath(packageFile('bin/flowgauge-preflight.mjs')))).toBe(true);
    expect(fileURLToPath(packageModule('cli/worker-exit-guard'))).toBe(fileURLToPath(new URL('src/cli/worker-exit-guard.ts', PACKAGE_ROOT)));
    expect(existsSync(fileURLToPath(packageModule('index')))).toBe(true);
  });
});
