/**
 * An empty user project that installs a packed flowgauge tarball with `npm install --offline`,
 * its dependencies served by the npm cache that `npm ci` filled in this checkout.
 *
 * `npm ci` caches tarballs, not the registry's package documents, so `npm install <tgz>` alone
 * would need the network to resolve version ranges. The project therefore gets a lockfile made
 * from this checkout's: the tarball, and every non-dev package at the version and integrity
 * already cached (with its registry URL, which the checkout's lockfile leaves out).
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

interface LockEntry {
  version?: string;
  resolved?: string;
  dev?: boolean;
  [key: string]: unknown;
}

interface PackageJson {
  name: string;
  version: string;
  license?: string;
  bin?: Record<string, string>;
  engines?: Record<string, string>;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** The registry URL of a package's tarball, as npm would have written it in `resolved`. */
function tarballUrl(registry: string, name: string, version: string): string {
  const base = registry.endsWith('/') ? registry : `${registry}/`;
  return `${base}${name}/-/${name.split('/').pop() ?? name}-${version}.tgz`;
}

/**
 * Writes package.json and package-lock.json of a project in `dir` that depends on the tarball
 * `tgz`, with the checkout at `root` as the source of versions and integrities.
 */
export async function writeOfflineProject(dir: string, root: string, tgz: string): Promise<void> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageJson;
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const { stdout } = await exec('npm', ['config', 'get', 'registry'], { cwd: dir });
  const registry = stdout.trim() || 'https://registry.npmjs.org/';
  const spec = `file:${basename(tgz)}`;

  const packages: Record<string, LockEntry> = {
    '': { name: 'a-user-project', dependencies: { [pkg.name]: spec } },
    [`node_modules/${pkg.name}`]: {
      version: pkg.version,
      resolved: spec,
      license: pkg.license,
      bin: pkg.bin,
      engines: pkg.engines,
      dependencies: pkg.dependencies,
      optionalDependencies: pkg.optionalDependencies,
    },
  };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.dev === true || entry.version === undefined || !path.includes('node_modules/')) continue;
    const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    packages[path] = { ...entry, resolved: entry.resolved ?? tarballUrl(registry, name, entry.version) };
  }
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'a-user-project', private: true, type: 'module', dependencies: { [pkg.name]: spec } }, null, 2)}\n`);
  writeFileSync(join(dir, 'package-lock.json'), `${JSON.stringify({ name: 'a-user-project', lockfileVersion: 3, requires: true, packages }, null, 2)}\n`);
}
