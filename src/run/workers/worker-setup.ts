/**
 * What a program must have in place in every thread that runs scenario code, without run/
 * knowing what it is (`RunOptions.workerSetup`): the CLI guards `process.exit` there, a part
 * run/ may not import. Each worker thread imports the setup module before it loads anything of
 * the scenario and calls its `setupWorker()` export; what that returns joins the worker's run.
 */
import { InvalidArgumentError } from '../../core/errors.js';
import type { RunPhase } from '../phase.js';

/** What a worker setup gives the worker's run. */
export interface WorkerSetup {
  /** Aborted to stop the worker's run as a stop from the main thread does (drained, reported). */
  readonly stopSignal?: AbortSignal | undefined;
  /** Phases added to the worker's run (what the setup saw, as warnings of its report). */
  readonly phases?: readonly RunPhase[] | undefined;
}

/** Imports the module at `href` and calls its `setupWorker()`; nothing without one. */
export async function loadWorkerSetup(href: string | undefined): Promise<WorkerSetup> {
  if (href === undefined) return {};
  const mod = (await import(href)) as { readonly setupWorker?: unknown };
  if (typeof mod.setupWorker !== 'function') throw new InvalidArgumentError(`workerSetup ${href} exports no setupWorker()`);
  return (mod.setupWorker as () => WorkerSetup)();
}
