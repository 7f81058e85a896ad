/**
 * Child processes of the benchmark: spawned pinned to one core when `taskset` exists, talking
 * back through stdout lines (`READY <json>`, `RESULT <json>`), and measured for CPU time from
 * `/proc/<pid>/stat` or `/usr/bin/time` for peers that cannot measure themselves.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (bench/ is one level down). */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Cores the benchmark pins to: the server on one, every generator on the other. */
export const SERVER_CORE = 0;
export const GENERATOR_CORE = 1;

let tasksetKnown: boolean | undefined;

/** True when `taskset` exists and there are at least two cores to pin to. */
export function canPin(): boolean {
  if (tasksetKnown === undefined) {
    try {
      execFileSync('taskset', ['-V'], { stdio: 'ignore' });
      tasksetKnown = availableParallelism() >= 2;
    } catch {
      tasksetKnown = false;
    }
  }
  return tasksetKnown;
}

/** Path of an executable on PATH, or undefined (a missing peer is reported as missing). */
export function which(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const p = join(dir, name);
    if (dir !== '' && existsSync(p)) return p;
  }
  for (const dir of ['/usr/sbin', '/sbin']) if (existsSync(join(dir, name))) return join(dir, name);
  return undefined;
}

/** A spawned child with its output lines. */
export interface Child {
  readonly proc: ChildProcess;
  readonly pid: number;
  /** Resolves with the first line matching `re` (rejects if the child exits first or `timeoutMs` passes). */
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Resolves with the exit code once the child has exited. */
  readonly exited: Promise<number | null>;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it has exited. */
  stop(graceMs?: number): Promise<void>;
}

/** Spawns `command` (pinned to `core` when possible) with `cwd` at the repository root. */
export function spawnChild(command: string, args: readonly string[], core: number | undefined, env?: NodeJS.ProcessEnv): Child {
  const pinned = core !== undefined && canPin();
  const proc = pinned
    ? spawn('taskset', ['-c', String(core), command, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: env ?? process.env })
    : spawn(command, [...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: env ?? process.env });
  let out = '';
  const waiters: { re: RegExp; resolve: (m: RegExpExecArray) => void }[] = [];
  const onText = (d: Buffer): void => {
    out += d.toString();
    for (let i = waiters.length - 1; i >= 0; i--) {
      const w = waiters[i] as (typeof waiters)[number];
      const m = w.re.exec(out);
      if (m !== null) {
        waiters.splice(i, 1);
        w.resolve(m);
      }
    }
  };
  proc.stdout?.on('data', onText);
  proc.stderr?.on('data', onText);
  let code: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (c) => resolve((code = c))));
  return {
    proc,
    pid: proc.pid ?? -1,
    exited,
    output: () => out,
    waitFor(re, timeoutMs = 120_000) {
      const m = re.exec(out);
      if (m !== null) return Promise.resolve(m);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${re} from ${command}; output:\n${out.slice(-2000)}`)), timeoutMs);
        waiters.push({
          re,
          resolve: (x) => {
            clearTimeout(timer);
            resolve(x);
          },
        });
        void exited.then((c) => {
          clearTimeout(timer);
          // A line may arrive in the same tick as the exit.
          const late = re.exec(out);
          if (late !== null) resolve(late);
          else reject(new Error(`${command} exited (${c}) before printing ${re}; output:\n${out.slice(-2000)}`));
        });
      });
    },
    async stop(graceMs = 3000) {
      if (code !== undefined) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Spawns a TypeScript file of bench/ under tsx. */
export function spawnTs(script: string, args: readonly string[], core: number | undefined, nodeArgs: readonly string[] = []): Child {
  return spawnChild(process.execPath, [...nodeArgs, '--import', 'tsx', join(ROOT, 'bench', script), ...args], core);
}

/** Reads the JSON of the child's `RESULT {…}` line (waiting for it). */
export async function resultOf<T>(child: Child, timeoutMs?: number): Promise<T> {
  const m = await child.waitFor(/^RESULT (.*)$/m, timeoutMs);
  return JSON.parse(m[1] as string) as T;
}

const TICKS_PER_S = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU seconds of a live process from `/proc/<pid>/stat`, or undefined. */
export function procCpuS(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised name (which may hold spaces): utime is 14th, stime 15th.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) / TICKS_PER_S;
  } catch {
    return undefined;
  }
}

/**
 * The process's minor page faults so far (`/proc/<pid>/stat`, field 10): a window that takes
 * many more per request than another is a different run of the same code (fresh memory zeroed
 * by the kernel), which CPU per request alone does not tell apart.
 */
export function procMinorFaults(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const n = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[7]);
    return Number.isFinite(n) ? n : undefined;
  } catch {
    return undefined;
  }
}

/** Sleeps (the orchestrator only; drivers measure, they never sleep-and-hope). */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
