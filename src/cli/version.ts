import { readFileSync } from 'node:fs';
import { packageFile } from '../core/package-root.js';

/** The package version, read once from package.json next to src/ or dist/. */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
}
