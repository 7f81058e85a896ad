/**
 * Debian's nginx as a real gateway in tests: one process (no master, no daemon, no access log)
 * under a temporary prefix, with the `http {}` body the test writes. Ports are picked free on
 * 127.0.0.1 beforehand and the start is awaited by polling them, since nginx prints nothing
 * when it starts well.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The nginx binary: Debian's path, else the first on PATH; undefined when there is none. */
export function findNginx(): string | undefined {
  if (existsSync('/usr/sbin/nginx')) return '/usr/sbin/nginx';
  const r = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' });
  const path = r.stdout.trim();
  return r.status === 0 && path !== '' ? path : undefined;
}

/** A running nginx. */
export interface TestNginx {
  /** The prefix directory (certificates and files the config names may be written here). */
  readonly prefix: string;
  /** What nginx wrote to its error log so far (for a failing test's message). */
  errorLog(): string;
  stop(): Promise<void>;
}

async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

/**
 * Starts `nginx` with `http` as the body of its `http {}` block, once every port in `ports`
 * accepts connections (or throws with nginx's error log after 5 s).
 */
export async function startNginx(nginx: string, prefix: string, http: string, ports: readonly number[]): Promise<TestNginx> {
  mkdirSync(join(prefix, 'logs'), { recursive: true });
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((k) => `${k}_temp_path ${join(prefix, `tmp_${k}`)};`).join(' ');
  const conf = `worker_processes 1; master_process off; daemon off; pid ${join(prefix, 'nginx.pid')};
error_log ${join(prefix, 'logs', 'error.log')} warn;
events { worker_connections 1024; }
http { access_log off; ${temp}
${http}
}
`;
  writeFileSync(join(prefix, 'nginx.conf'), conf);
  const child: ChildProcess = spawn(nginx, ['-p', prefix, '-c', join(prefix, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const errorLog = (): string => {
    const file = join(prefix, 'logs', 'error.log');
    return `${stderr}${existsSync(file) ? readFileSync(file, 'utf8') : ''}`;
  };
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      await exited;
    }
  };
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) break;
    const up = await Promise.all(ports.map(listening));
    if (up.every(Boolean)) return { prefix, errorLog, stop };
    await new Promise((r) => setTimeout(r, 50));
  }
  await stop();
  throw new Error(`nginx did not start listening on ${ports.join(', ')}:\n${errorLog()}`);
}

/** A fresh prefix directory for one nginx. */
export function nginxPrefix(): string {
  return mkdtempSync(join(tmpdir(), 'fg-nginx-gw-'));
}

/** Removes a prefix directory. */
export function removePrefix(prefix: string): void {
  rmSync(prefix, { recursive: true, force: true });
}
