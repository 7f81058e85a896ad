/**
 * The flowgauge CLI as a child process (`node bin/flowgauge.mjs …`), for tests that need a real
 * process: signals, exit codes, everything it writes. Output is collected as it arrives, and
 * `until` polls a condition instead of sleeping for a guessed time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The checkout's bin/flowgauge.mjs: the sources through tsx (for tests about that very path). */
export const SOURCE_BIN = fileURLToPath(new URL('../../bin/flowgauge.mjs', import.meta.url));

/**
 * The CLI tests spawn: the package root compiled once by the global setup
 * (test/setup/compiled-cli.ts), or the sources when it did not run (a file run without the
 * config) or `FLOWGAUGE_TEST_FROM_SOURCE=1`.
 */
export const CLI_BIN = process.env.FLOWGAUGE_TEST_BIN ?? SOURCE_BIN;

/** This machine's start-up of the CLI the quiet reference machine takes ~1 s for (2 cores, nothing else running). */
const QUIET_START_UP_MS = 1_000;

/**
 * `ms`, a guard against a hang, stretched by how much slower than a quiet machine this one
 * started the CLI when the suite began (`FLOWGAUGE_TEST_START_UP_MS`, measured by the global
 * setup), at least ×1 and at most ×6. Never a timing assertion: only how long to wait before
 * calling something hung.
 */
export function scaledMs(ms: number): number {
  const measured = Number(process.env.FLOWGAUGE_TEST_START_UP_MS);
  const factor = Number.isFinite(measured) && measured > 0 ? Math.min(6, Math.max(1, measured / QUIET_START_UP_MS)) : 1;
  return Math.round(ms * factor);
}

/** A running CLI. */
export interface CliProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal that killed it). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** True once the process has exited. */
  hasExited(): boolean;
}

/**
 * Starts `flowgauge <args>` in `cwd`, with `env` added to (a trimmed copy of) this process's;
 * `nodeArgs` go to node itself (e.g. `--max-old-space-size=48`); `bin` is `CLI_BIN` unless given.
 */
export function spawnCli(args: readonly string[], options: { cwd: string; env?: Record<string, string>; nodeArgs?: readonly string[]; bin?: string }): CliProcess {
  // FLOWGAUGE_TOKEN from the outer environment must not leak into a test that checks tokens.
  const { FLOWGAUGE_TOKEN: _t, ...base } = process.env;
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.bin ?? CLI_BIN, ...args], {
    cwd: options.cwd,
    env: { ...base, NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let done = false;
  child.stdout?.setEncoding('utf8').on('data', (s: string) => (out += s));
  child.stderr?.setEncoding('utf8').on('data', (s: string) => (err += s));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
  });
  return { child, stdout: () => out, stderr: () => err, exited, hasExited: () => done };
}

/**
 * Polls `check` every `everyMs` until it returns true; rejects after `timeoutMs` (stretched by
 * `scaledMs` on a machine that starts slowly) with `what`: a safety net against a hung test,
 * not a timing assertion.
 */
export async function until(check: () => boolean, what: string, timeoutMs = 20_000, everyMs = 5): Promise<void> {
  const deadline = performance.now() + scaledMs(timeoutMs);
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Kills `p` if it still runs (cleanup after a failed test). */
export async function killIfRunning(p: CliProcess | undefined): Promise<void> {
  if (p === undefined || p.hasExited()) return;
  p.child.kill('SIGKILL');
  await p.exited;
}
