/**
 * What an exporter is: something a run feeds that lives at the run's edge — a server, a push,
 * a span pipeline — started once in the main thread, fed by an output in whichever thread runs
 * the schedule, and closed after the run. One file under `exporters/` holds all of one exporter
 * (its wish, its start, its half in a worker thread); `exporter-registry.ts` lists them once.
 *
 * In a run in this thread, the exporter's `output` hears the run. Over worker threads, each
 * worker builds its half from the `brief` (plain data) and sends a snapshot with its progress;
 * the main thread `collect`s them and serves, pushes or publishes them as one run's.
 */
import type { Report } from '../../report/index.js';
import type { ResolvedRunPlan } from '../../scenario/index.js';
import type { NotificationTracking } from '../notifications.js';
import type { RunOutput } from '../output.js';
import type { RunProgress } from '../progress.js';

/** Something that takes text (the CLI's stdout or stderr). */
export interface TextSink {
  write(text: string): void;
}

/** What an exporter is told when it starts. */
export interface ExporterContext {
  readonly plan: ResolvedRunPlan;
  /** Worker threads of the run (1: the run is in this thread). */
  readonly workers: number;
  /** This process's shard of a distributed run. */
  readonly shard: { readonly index: number; readonly count: number } | undefined;
  /**
   * The target's name (`--target-name`; by default the base URL's host): what keeps the series of
   * one target apart from another's in one Prometheus or Pushgateway. Undefined only for a base
   * URL whose host is no name (the CLI asks for the flag then).
   */
  readonly targetName: string | undefined;
  /** Where it says what it serves (its URL). */
  readonly log: TextSink;
  /** Where it says what failed later (a push, a span export): never thrown. */
  readonly warn: TextSink;
  /** The environment (`OTEL_*` and the like). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The run's notification receiver, when it has one. */
  readonly notifications: NotificationTracking | undefined;
}

/** A started exporter. */
export interface StartedExporter {
  /** What feeds it from a run in this thread. */
  readonly output?: RunOutput | undefined;
  /** Over worker threads: what each worker builds its half from (plain data). */
  readonly brief?: unknown;
  /** A worker's snapshot, as it arrives (before the merged progress it came with). */
  collect?(worker: number, snapshot: unknown): void;
  /** The workers' merged progress, about once a second. */
  tick?(p: RunProgress): void;
  /** The final report, after every output had it. */
  end?(report: Report): void;
  /**
   * Final push, flush, servers closed; failures are said, never thrown. Bounded (a final push or
   * a span shutdown gets one attempt of at most 1 s): a down endpoint never holds the run's end.
   */
  close(): Promise<void>;
}

/** An exporter's half in a worker thread. */
export interface WorkerHalf {
  readonly output?: RunOutput | undefined;
  /** What goes to the main thread with each progress tick and at the end. */
  snapshot?(): unknown;
  close?(): Promise<void>;
}

/** One exporter: its name (the key of its wish), its start, and its half in a worker thread. */
export interface Exporter<Name extends string, Wish> {
  readonly name: Name;
  /** Starts what `wish` asks for; resolves once every server listens. Throws for bad input. */
  start(wish: Wish, ctx: ExporterContext): Promise<StartedExporter>;
  /** Builds a worker's half from its `brief`. */
  inWorker(brief: unknown, warn: TextSink): Promise<WorkerHalf>;
}
