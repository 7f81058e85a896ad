/**
 * The container scripts of deploy/kubernetes's Jobs, as a pod runs them: taken from the manifest,
 * with /app and the reports volume mapped onto directories of this machine.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';
import { parseAllDocuments } from 'yaml';

const ROOT = resolve(import.meta.dirname, '../../..');

interface Container {
  command: string[];
  args: string[];
  env: { name: string; value?: string }[];
  volumeMounts: { name: string; mountPath: string }[];
}

/** The container of a Job manifest in deploy/kubernetes. */
function container(file: string): Container {
  const [job] = parseAllDocuments(readFileSync(join(ROOT, 'deploy/kubernetes', file), 'utf8')).map((d) => d.toJS() as { spec: { template: { spec: { containers: Container[] } } } });
  return job?.spec.template.spec.containers[0] as Container;
}

/** The manifest's script (run by `sh -c`) with /app/ and the reports volume's mount mapped onto `app` and `reports`. */
export function podScript(file: string, app: string, reports: string): string {
  const c = container(file);
  expect(c.command).toEqual(['sh', '-c']);
  const mount = c.volumeMounts.find((m) => m.name === 'reports')?.mountPath as string;
  expect(mount).toBe('/reports');
  return c.args.join('\n').replaceAll('/app/', `${app}/`).replace(/\/reports(?=[/"\s]|$)/g, reports);
}

/** The manifest's own value of an environment variable (RUN_ID). */
export const envValue = (file: string, name: string): string | undefined => container(file).env.find((e) => e.name === name)?.value;
