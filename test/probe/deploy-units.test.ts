/**
 * What people install to run probes as a service: the Kubernetes CronJob and the systemd
 * service + timer in deploy/. The units are checked by `systemd-analyze verify` (skipped loudly
 * without it, never under CI=true); the manifest by a schema of the fields it relies on, strict
 * at every level it sets, so a misspelt key fails here rather than being ignored by the cluster.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (p: string): string => readFileSync(join(ROOT, p), 'utf8');

const envFromSecret = z.strictObject({ name: z.string(), valueFrom: z.strictObject({ secretKeyRef: z.strictObject({ name: z.string(), key: z.string() }) }) });
const container = z.strictObject({
  name: z.string(),
  image: z.string(),
  command: z.array(z.string()),
  args: z.array(z.string()),
  env: z.array(envFromSecret),
  resources: z.strictObject({ requests: z.record(z.string(), z.string()), limits: z.record(z.string(), z.string()) }),
  securityContext: z.strictObject({ allowPrivilegeEscalation: z.boolean(), readOnlyRootFilesystem: z.boolean() }),
  volumeMounts: z.array(z.strictObject({ name: z.string(), mountPath: z.string() })),
});
const meta = z.strictObject({ name: z.string().optional(), labels: z.record(z.string(), z.string()) });
const cronJob = z.strictObject({
  apiVersion: z.literal('batch/v1'),
  kind: z.literal('CronJob'),
  metadata: meta,
  spec: z.strictObject({
    schedule: z.string().regex(/^(\S+\s+){4}\S+$/),
    concurrencyPolicy: z.enum(['Allow', 'Forbid', 'Replace']),
    startingDeadlineSeconds: z.number().int().positive(),
    successfulJobsHistoryLimit: z.number().int(),
    failedJobsHistoryLimit: z.number().int(),
    jobTemplate: z.strictObject({
      spec: z.strictObject({
        backoffLimit: z.number().int(),
        activeDeadlineSeconds: z.number().int().positive(),
        ttlSecondsAfterFinished: z.number().int(),
        template: z.strictObject({
          metadata: meta,
          spec: z.strictObject({
            restartPolicy: z.enum(['Never', 'OnFailure']),
            securityContext: z.strictObject({ runAsNonRoot: z.boolean(), runAsUser: z.number().int(), fsGroup: z.number().int() }),
            containers: z.array(container).length(1),
            volumes: z.array(z.strictObject({ name: z.string(), persistentVolumeClaim: z.strictObject({ claimName: z.string() }) })),
          }),
        }),
      }),
    }),
  }),
});
const pvc = z.strictObject({
  apiVersion: z.literal('v1'),
  kind: z.literal('PersistentVolumeClaim'),
  metadata: meta,
  spec: z.strictObject({ accessModes: z.array(z.string()), resources: z.strictObject({ requests: z.strictObject({ storage: z.string() }) }) }),
});

describe('deploy/kubernetes/probe-cronjob.yaml', () => {
  const docs = parseAllDocuments(read('deploy/kubernetes/probe-cronjob.yaml')).map((d) => {
    expect(d.errors).toEqual([]);
    return d.toJS() as unknown;
  });
  const claim = pvc.parse(docs[0]);
  const job = cronJob.parse(docs[1]);
  const spec = job.spec.jobTemplate.spec.template.spec;
  const c = spec.containers[0]!;

  it('runs one round a minute, never two at once, with --interval equal to the schedule', () => {
    expect(docs).toHaveLength(2);
    expect(job.spec.schedule).toBe('* * * * *');
    expect(job.spec.concurrencyPolicy).toBe('Forbid');
    expect(job.spec.jobTemplate.spec.activeDeadlineSeconds).toBeLessThan(60);
    const script = c.args.join('\n');
    expect(script).toMatch(/probe --once --interval 1m /);
  });

  it('keeps the history on a volume and takes the token from a Secret', () => {
    const script = c.args.join('\n');
    const mount = c.volumeMounts[0]!;
    expect(script).toContain(`--history ${mount.mountPath}/probe-history`);
    expect(spec.volumes.find((v) => v.name === mount.name)?.persistentVolumeClaim.claimName).toBe(claim.metadata.name);
    expect(c.env.find((e) => e.name === 'FLOWGAUGE_TOKEN')?.valueFrom.secretKeyRef).toEqual({ name: 'flowgauge-target', key: 'token' });
    expect(script).not.toMatch(/--token/);
  });
});

describe('deploy/systemd', () => {
  const dir = join(ROOT, 'deploy/systemd');
  const service = read('deploy/systemd/flowgauge-probe.service');
  const timer = read('deploy/systemd/flowgauge-probe.timer');

  it('the timer fires every minute and the service records a minute per round, the token from a file', () => {
    expect(timer).toMatch(/^OnUnitActiveSec=1min$/m);
    expect(timer).toMatch(/^Unit=flowgauge-probe\.service$/m);
    expect(service).toMatch(/^ExecStart=.* probe --once --interval 1m .*--history \/var\/lib\/flowgauge\/probe-history/m);
    expect(service).toMatch(/^EnvironmentFile=\/etc\/flowgauge\/probe\.env$/m);
    expect(service).not.toMatch(/--token/);
    expect(service).toMatch(/^SuccessExitStatus=1$/m);
  });

  const analyze = existsSync('/usr/bin/systemd-analyze') ? '/usr/bin/systemd-analyze' : undefined;
  if (analyze === undefined && process.env.CI === 'true') throw new Error('systemd-analyze is required under CI=true');
  if (analyze === undefined) console.warn('SKIPPED: systemd-analyze not installed; the units were not verified');
  it.skipIf(analyze === undefined)('systemd-analyze verify finds nothing to say about the units', () => {
    const r = spawnSync(analyze!, ['verify', '--man=no', './flowgauge-probe.service', './flowgauge-probe.timer'], { cwd: dir, encoding: 'utf8' });
    // Unknown keys and bad values are only warnings (exit 0), so any output at all fails.
    expect(`${r.stdout}${r.stderr}`).toBe('');
    expect(r.status).toBe(0);
  });
});
