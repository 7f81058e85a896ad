/**
 * Children of the benchmark run as plain JavaScript, the way an installed flowgauge runs
 * (compiled `dist/`), not through the tsx loader, whose off-thread module hooks alone add about
 * 40 MB of RSS and would be charged to flowgauge in the memory case. Each script is bundled
 * once per `npm run bench` with esbuild (tsx's own compiler), packages left external, into
 * `node_modules/.cache/flowgauge-bench/<checkout>/`. Without esbuild, scripts fall back to tsx.
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ROOT, spawnChild, spawnTs, type Child } from './proc.js';

// One directory per checkout: git worktrees may share one node_modules, and a bench run in one
// must not have its drivers rebuilt from another tree's sources halfway through.
const OUT_DIR = join(ROOT, 'node_modules', '.cache', 'flowgauge-bench', createHash('sha256').update(ROOT).digest('hex').slice(0, 12));
const built = new Map<string, Promise<string | undefined>>();

async function build(script: string): Promise<string | undefined> {
  let esbuild: typeof import('esbuild');
  try {
    esbuild = await import('esbuild');
  } catch {
    return undefined;
  }
  mkdirSync(OUT_DIR, { recursive: true });
  const outfile = join(OUT_DIR, `${basename(script, '.ts')}.mjs`);
  await esbuild.build({
    entryPoints: [join(ROOT, 'bench', script)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  });
  return outfile;
}

/** The bundled form of a bench/ script (built on first use), or undefined to run it with tsx. */
export function bundled(script: string): Promise<string | undefined> {
  let p = built.get(script);
  if (p === undefined) {
    p = build(script).catch(() => undefined);
    built.set(script, p);
  }
  return p;
}

/** Spawns a bench/ script as plain JavaScript when it could be bundled, else under tsx. */
export async function spawnScript(script: string, args: readonly string[], core: number | undefined, nodeArgs: readonly string[] = []): Promise<Child> {
  const file = await bundled(script);
  return file === undefined ? spawnTs(script, args, core, nodeArgs) : spawnChild(process.execPath, [...nodeArgs, file, ...args], core);
}
