/**
 * flowgauge as users get it: `npm pack` of this checkout (its `prepack` builds dist/),
 * installed with `npm install --global --prefix <temp>` the way `npm install -g flowgauge`
 * would, so the bench times the installed `flowgauge` command (compiled dist/, the package's
 * own dependency tree), not the sources under tsx. Done once per `npm run bench`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './proc.js';

/** The installed CLI: its bin path, and where it lives. */
export interface InstalledCli {
  /** `<prefix>/bin/flowgauge`, a symlink to the package's bin/flowgauge.mjs (run with node). */
  readonly bin: string;
  /** The tarball's file name, for the report. */
  readonly tarball: string;
  /** Removes the temporary prefix. */
  remove(): void;
}

let installed: Promise<InstalledCli> | undefined;

function npm(args: readonly string[], cwd: string): string {
  return execFileSync('npm', [...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' } });
}

async function install(log: (m: string) => void): Promise<InstalledCli> {
  const dir = mkdtempSync(join(tmpdir(), 'fg-bench-cli-'));
  log('installed CLI: npm pack (builds dist/) and npm install --global into a temporary prefix');
  npm(['pack', '--pack-destination', dir, '--silent'], ROOT);
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  if (tarball === undefined) throw new Error(`npm pack wrote no tarball into ${dir}`);
  const prefix = join(dir, 'prefix');
  // --prefer-offline: the dependencies are in npm's cache already (this checkout installed them).
  npm(['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', join(dir, tarball)], dir);
  const bin = join(prefix, 'bin', 'flowgauge');
  if (!existsSync(bin)) throw new Error(`npm install left no ${bin}`);
  return { bin, tarball, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Packs and installs this checkout once per bench run (later calls share the first install). */
export function installedCli(log: (m: string) => void): Promise<InstalledCli> {
  installed ??= install(log);
  return installed;
}
