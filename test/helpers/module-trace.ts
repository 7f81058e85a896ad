/**
 * Which modules a Node process loads: the process runs with `--import` of a hook that writes
 * every loaded module's URL to a file. A structural measure of start-up (what a command pulls
 * in), not a timing one. CommonJS files count too, however they were reached (an ESM import of
 * a package, a `require` inside one, a `createRequire`).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const REGISTER = new URL('./module-trace/register.mjs', import.meta.url).pathname;

/** What one traced run printed and loaded. */
export interface TracedRun {
  readonly stdout: string;
  readonly stderr: string;
  /** URLs of the modules loaded, in order, without the query (tsx's namespace). */
  readonly modules: readonly string[];
}

/** Runs `node --import <trace> script ...args` with the PATH's node (or `node`), and lists what it loaded. */
export async function traceModules(script: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; node?: string } = {}): Promise<TracedRun> {
  const dir = mkdtempSync(join(tmpdir(), 'fg-trace-'));
  const file = join(dir, 'modules.txt');
  try {
    const { stdout, stderr } = await exec(options.node ?? process.execPath, ['--import', REGISTER, script, ...args], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env, FG_MODULE_TRACE: file },
      maxBuffer: 16 * 1024 * 1024,
    });
    const modules = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((u) => u.replace(/\?.*$/, ''));
    return { stdout, stderr, modules };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The npm packages among `modules` (`autocannon`, `@opentelemetry/api`, …), each once. */
export function packagesOf(modules: readonly string[]): string[] {
  const names = new Set<string>();
  for (const url of modules) {
    const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url.slice(url.lastIndexOf('/node_modules/')));
    if (m?.[1] !== undefined) names.add(m[1]);
  }
  return [...names].sort();
}
