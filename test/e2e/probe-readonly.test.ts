/**
 * The probe CronJob as it runs in the cluster: deploy/kubernetes/probe-cronjob.yaml's script,
 * run by `sh` against /app assembled from the last stage of deploy/kubernetes/Dockerfile (its
 * COPY lines; the build stage's dist/ is a fresh `tsc -p tsconfig.build.json`), as a non-root
 * user (nobody through setpriv when the tests run as root, else the user itself), with a
 * read-only root filesystem simulated: /app, TMPDIR, HOME and the working directory are not
 * writable; only the manifest's volumes are (the history at /data).
 *
 * It asserts the pod's exit code and the records in the history: a healthy target gives 0 and
 * five records; an unreachable one 0 (a missed objective is recorded, not a failed pod) and five
 * failed records; a crash before the round (here: an unwritable history) fails the pod. The
 * shipped image once ran src/ through tsx, whose cache under TMPDIR a read-only root refuses:
 * exit 1, which the old script turned into a succeeded pod while no probe ever ran.
 *
 * Needs `setpriv` (util-linux) when run as root: without it the tests skip loudly, and under
 * CI=true fail instead.
 */
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));
const isRoot = process.getuid?.() === 0;
/** The pod's user: nobody when we can switch to it, else the (already non-root) user running the tests. */
const NOBODY = 65534;
const MISSING = isRoot && SETPRIV === undefined ? 'setpriv (util-linux) was not found: cannot run the probe as a non-root user' : undefined;
if (MISSING !== undefined && process.env.CI === 'true') throw new Error(`${MISSING} (required under CI=true)`);
if (MISSING !== undefined) process.stderr.write(`\n*** SKIPPING test/e2e/probe-readonly.test.ts: ${MISSING} ***\n\n`);

interface Container {
  command: string[];
  args: string[];
  volumeMounts: { name: string; mountPath: string }[];
  securityContext: { readOnlyRootFilesystem?: boolean };
}

/** The probe container of the CronJob. */
function manifestContainer(): Container {
  const docs = parseAllDocuments(readFileSync(join(ROOT, 'deploy/kubernetes/probe-cronjob.yaml'), 'utf8')).map((d) => d.toJS() as Record<string, unknown>);
  const job = docs.find((d) => d.kind === 'CronJob') as { spec: { jobTemplate: { spec: { template: { spec: { containers: Container[] } } } } } };
  return job.spec.jobTemplate.spec.template.spec.containers[0]!;
}

/** Builds /app as the Dockerfile's last stage does: its WORKDIR, COPY and `npm ci` lines. */
function assembleImage(app: string, builtDist: string): void {
  const lines = readFileSync(join(ROOT, 'deploy/kubernetes/Dockerfile'), 'utf8')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const last = lines.findLastIndex((l) => /^FROM\s/i.test(l));
  let workdir = '/';
  for (const line of lines.slice(last + 1)) {
    const [instr, ...words] = line.split(/\s+/);
    if (/^WORKDIR$/i.test(instr!)) workdir = words[0]!;
    if (/^RUN$/i.test(instr!) && /\bnpm ci\b/.test(line)) symlinkSync(join(ROOT, 'node_modules'), join(app, 'node_modules'));
    if (!/^COPY$/i.test(instr!)) continue;
    const from = words.find((w) => w.startsWith('--from='));
    const paths = words.filter((w) => !w.startsWith('--'));
    const dest = paths.pop()!;
    expect(workdir, 'the image is assembled under WORKDIR /app, as the manifest runs /app/bin/flowgauge.mjs').toBe('/app');
    const target = resolve(join(app, dest.startsWith('/') ? dest.slice('/app'.length) : dest));
    for (const src of paths) {
      // From the build stage, only its dist/ (the output of `npm run build`) is known here.
      if (from !== undefined) expect(basename(src), `COPY ${from} ${src}: only the build stage's dist/ is modelled`).toBe('dist');
      const source = from !== undefined ? builtDist : join(ROOT, src);
      const into = dest.endsWith('/') || paths.length > 1 ? join(target, basename(src)) : target;
      mkdirSync(dirname(into), { recursive: true });
      cpSync(source, into, { recursive: true });
    }
  }
}

let dir: string;
let app: string;
let readOnly: string;
let service: ReferenceService;
let pushgateway: Server;
let pushgatewayUrl: string;
let pushes = 0;

beforeAll(async () => {
  if (MISSING !== undefined) return;
  dir = mkdtempSync(join(tmpdir(), 'fg-probe-ro-'));
  chmodSync(dir, 0o755);
  const built = join(dir, 'build');
  await new Promise<void>((done, fail) =>
    execFile(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--declaration', 'false', '--outDir', join(built, 'dist')], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      err ? fail(new Error(`tsc -p tsconfig.build.json failed:\n${stdout}${stderr}`)) : done(),
    ),
  );
  app = join(dir, 'app');
  mkdirSync(app);
  assembleImage(app, join(built, 'dist'));
  // The read-only root: nothing of the image, TMPDIR or HOME is writable by the pod's user.
  readOnly = join(dir, 'ro');
  mkdirSync(readOnly);
  for (const p of [app, readOnly]) chmodSync(p, 0o555);
  if (!isRoot) chmodTree(app, false);

  service = await startReferenceService({ latency: 'none' });
  pushgateway = createServer((req, res) => {
    pushes++;
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((r) => pushgateway.listen(0, '127.0.0.1', r));
  pushgatewayUrl = `http://127.0.0.1:${(pushgateway.address() as { port: number }).port}`;
}, 90_000);

afterAll(async () => {
  if (MISSING !== undefined) return;
  await service?.close();
  if (pushgateway !== undefined) await new Promise((r) => pushgateway.close(r));
  if (dir === undefined) return;
  if (!isRoot) chmodTree(dir, true);
  rmSync(dir, { recursive: true, force: true });
});

/** chmod -R a-w (or back to u+w), not following the node_modules symlink into the repository. */
function chmodTree(path: string, writable: boolean): void {
  const entries = readdirSync(path, { withFileTypes: true, recursive: true }).filter((e) => !e.isSymbolicLink());
  for (const e of [...entries.map((e) => ({ p: join(e.parentPath, e.name), dir: e.isDirectory() })), { p: path, dir: true }]) {
    const exec = e.dir || (statSync(e.p).mode & 0o111) !== 0;
    chmodSync(e.p, (exec ? 0o555 : 0o444) | (writable ? 0o200 : 0));
  }
}

/** A writable volume directory owned by the pod's user. */
function volume(name: string): string {
  const p = join(dir, `${name}-${Math.random().toString(36).slice(2, 8)}`);
  mkdirSync(p);
  if (isRoot) chownSync(p, NOBODY, NOBODY);
  return p;
}

interface Pod {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

/** Runs the manifest's container script with its paths mapped onto this machine. */
async function runPod(opts: { baseUrl: string; volumes: Record<string, string> }): Promise<Pod> {
  const c = manifestContainer();
  expect(c.command).toEqual(['sh', '-c']);
  expect(c.securityContext.readOnlyRootFilesystem).toBe(true);
  let script = c.args.join('\n').replaceAll('/app/', `${app}/`).replaceAll('http://flowgauge-pushgateway:9091', pushgatewayUrl);
  for (const m of c.volumeMounts) {
    const host = opts.volumes[m.name];
    if (host === undefined) throw new Error(`no directory given for the volume ${m.name}`);
    script = script.replace(new RegExp(`${m.mountPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=[/\\s"']|$)`, 'g'), host);
  }
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: readOnly,
    TMPDIR: readOnly,
    NO_COLOR: '1',
    FLOWGAUGE_BASE_URL: opts.baseUrl,
    FLOWGAUGE_TOKEN: service.tokens.pro,
  };
  const [cmd, args] = isRoot ? [SETPRIV!, [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', 'sh', '-c', script]] : ['sh', ['-c', script]];
  // Asynchronous: the reference service answers from this process.
  return new Promise((done) => {
    execFile(cmd, args as string[], { cwd: app, env, timeout: 20_000 }, (err, stdout, stderr) => {
      const e = err as (Error & { code?: number | string; signal?: string }) | null;
      done({ code: e === null ? 0 : typeof e.code === 'number' ? e.code : null, signal: e?.signal ?? null, stdout, stderr });
    });
  });
}

interface HistoryRecord {
  check: string;
  success: boolean;
  intervalMs: number;
}

function historyRecords(historyDir: string): HistoryRecord[] {
  if (!existsSync(historyDir)) return [];
  return readdirSync(historyDir)
    .filter((f) => /^probe-\d{4}-\d{2}-\d{2}\.jsonl$/.test(f))
    .flatMap((f) => readFileSync(join(historyDir, f), 'utf8').split('\n').filter((l) => l !== ''))
    .map((l) => JSON.parse(l) as HistoryRecord);
}

const show = (p: Pod): string => `exit ${p.code} ${p.signal ?? ''}\nstdout:\n${p.stdout}\nstderr:\n${p.stderr}`;

describe.skipIf(MISSING !== undefined)('the probe CronJob, non-root on a read-only root filesystem', () => {
  it('the image holds the compiled dist/ and no sources, so nothing goes through tsx', () => {
    expect(existsSync(join(app, 'dist/cli/main.js'))).toBe(true);
    expect(existsSync(join(app, 'src')), 'the image must not ship src/: bin/flowgauge.mjs would run it through tsx').toBe(false);
  });

  it('a healthy target: exit 0, every check recorded in the history volume', async () => {
    const data = volume('data');
    const pod = await runPod({ baseUrl: service.baseUrl, volumes: { history: data } });
    expect(pod.code, show(pod)).toBe(0);
    const records = historyRecords(join(data, 'probe-history'));
    expect(records.map((r) => r.check).sort(), show(pod)).toEqual(['getFlow', 'listFlows', 'run', 'stream', 'trigger']);
    expect(records.every((r) => r.success && r.intervalMs === 60_000), show(pod)).toBe(true);
    expect(pod.stderr).not.toMatch(/tsx|EACCES|EROFS/);
    expect(pushes).toBeGreaterThan(0);
  });

  it('an unreachable target: a missed objective, recorded; the pod still succeeds and says so', async () => {
    const data = volume('data');
    const pod = await runPod({ baseUrl: service.baseUrl.replace(/:\d+\//, ':1/'), volumes: { history: data } });
    expect(pod.code, show(pod)).toBe(0);
    const records = historyRecords(join(data, 'probe-history'));
    expect(records).toHaveLength(5);
    expect(records.every((r) => !r.success)).toBe(true);
    expect(pod.stderr).toMatch(/objective missed: 5 of 5 checks failed/);
  });

  it('a crash before the round (a history it cannot write) fails the pod instead of passing for an outage', async () => {
    const pod = await runPod({ baseUrl: service.baseUrl, volumes: { history: readOnly } });
    expect(pod.code, show(pod)).not.toBe(0);
    expect(pod.code, show(pod)).not.toBeNull();
    expect(historyRecords(join(readOnly, 'probe-history'))).toEqual([]);
    expect(pod.stderr).toMatch(/failing the pod/);
  });
});
