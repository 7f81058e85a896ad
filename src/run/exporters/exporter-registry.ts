/**
 * The exporters, listed once. The session starts the ones a run wishes for (`ExporterWishes`,
 * keyed by each exporter's name), feeds their outputs, and over worker threads hands each worker
 * their briefs and routes the workers' snapshots back; a worker builds its halves by name.
 * Adding an exporter is its file in this folder (see `exporter.ts`) and one line here.
 * Each exporter's module is imported only when a run wishes for it: prom-client, OpenTelemetry
 * and the dashboard's page are not loaded by a run that exports nothing.
 */
import type { Report } from '../../report/index.js';
import type { RunOutput } from '../output.js';
import type { RunProgress } from '../progress.js';
import type { dashboardExporter } from './dashboard.js';
import type { Exporter, ExporterContext, StartedExporter, TextSink, WorkerHalf } from './exporter.js';
import type { otelExporter } from './otel.js';
import type { prometheusExporter } from './prometheus.js';

type Exporters = typeof prometheusExporter | typeof otelExporter | typeof dashboardExporter;

/** Every exporter by name, in the order they are started, fed and closed, and how to load it. */
const EXPORTERS: readonly { readonly name: Exporters['name']; load(): Promise<Exporters> }[] = [
  { name: 'prometheus', load: async () => (await import('./prometheus.js')).prometheusExporter },
  { name: 'otel', load: async () => (await import('./otel.js')).otelExporter },
  { name: 'dashboard', load: async () => (await import('./dashboard.js')).dashboardExporter },
];

/** What a run asks to export: each exporter's wish under its name. */
export type ExporterWishes = { readonly [E in Exporters as E['name']]?: E extends Exporter<string, infer W> ? W | undefined : never };

/** The briefs of a run over workers, by exporter name (plain data). */
export type ExporterBriefs = Readonly<Record<string, unknown>>;

/** What each worker sends with its progress: each exporter's snapshot by name. */
export type ExporterSnapshots = Readonly<Record<string, unknown>>;

/** The started exporters of a run. */
export interface RunExporters {
  /** Their outputs, for a run in this thread. */
  readonly outputs: readonly RunOutput[];
  /** What each worker builds its halves from. */
  readonly briefs: ExporterBriefs;
  /** A worker's snapshots, as they arrive. */
  collect(worker: number, snapshots: ExporterSnapshots): void;
  /** The workers' merged progress. */
  tick(p: RunProgress): void;
  /** The final report. */
  end(report: Report): void;
  /** Closes every one at once (each bounded, so the final push and the span shutdown wait together); failures are said, never thrown. */
  close(): Promise<void>;
}

const anyExporter = (e: Exporters): Exporter<string, unknown> => e as unknown as Exporter<string, unknown>;

/** Starts every exporter `wishes` names; resolves once all listen. When one fails, those started are closed and the error thrown. */
export async function startExporters(wishes: ExporterWishes, ctx: ExporterContext): Promise<RunExporters> {
  const started: { readonly name: string; readonly e: StartedExporter }[] = [];
  // At once: each close is bounded (a final push, a span shutdown: one attempt of at most 1 s), and
  // one endpoint that does not answer must not add its wait to another's.
  const close = async (): Promise<void> => {
    await Promise.all(started.map(({ e }) => e.close()));
  };
  try {
    for (const exporter of EXPORTERS) {
      const wish = (wishes as Record<string, unknown>)[exporter.name];
      if (wish !== undefined) started.push({ name: exporter.name, e: await anyExporter(await exporter.load()).start(wish, ctx) });
    }
  } catch (err) {
    await close();
    throw err;
  }
  return {
    outputs: started.flatMap(({ e }) => (e.output === undefined ? [] : [e.output])),
    briefs: Object.fromEntries(started.flatMap(({ name, e }) => (e.brief === undefined ? [] : [[name, e.brief]]))),
    collect(worker, snapshots) {
      for (const { name, e } of started) if (snapshots[name] !== undefined) e.collect?.(worker, snapshots[name]);
    },
    tick(p) {
      for (const { e } of started) e.tick?.(p);
    },
    end(report) {
      for (const { e } of started) e.end?.(report);
    },
    close,
  };
}

/** A worker's halves of the exporters its briefs name. */
export interface WorkerExporters {
  readonly outputs: readonly RunOutput[];
  /** Each exporter's snapshot, by name. */
  snapshot(): Promise<ExporterSnapshots>;
  close(): Promise<void>;
}

/** Builds, in a worker thread, the halves of the exporters `briefs` names. */
export async function startWorkerExporters(briefs: ExporterBriefs, warn: TextSink): Promise<WorkerExporters> {
  const halves: { readonly name: string; readonly h: WorkerHalf }[] = [];
  const close = async (): Promise<void> => {
    for (const { h } of halves) await h.close?.();
  };
  try {
    for (const exporter of EXPORTERS) {
      if (briefs[exporter.name] !== undefined) halves.push({ name: exporter.name, h: await (await exporter.load()).inWorker(briefs[exporter.name], warn) });
    }
  } catch (err) {
    await close();
    throw err;
  }
  return {
    outputs: halves.flatMap(({ h }) => (h.output === undefined ? [] : [h.output])),
    async snapshot() {
      const out: Record<string, unknown> = {};
      for (const { name, h } of halves) if (h.snapshot !== undefined) out[name] = await h.snapshot();
      return out;
    },
    close,
  };
}
