/**
 * The throwaway thread of a scenario module's pre-flight (`load-preflight.ts`): it imports the
 * module and settles its export, as the load in the main thread will, and says when that came
 * back. The main thread terminates it at the deadline, whatever the module's code is doing.
 * Only the import is loaded here, not the rest of the scenario part.
 */
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import { importModule, pickExport, preloadPackage } from './module-import.js';
import type { PreflightAnswer, PreflightInput } from './load-preflight.js';

const input = workerData as PreflightInput;
const answer = (a: PreflightAnswer): void => parentPort?.postMessage(a);
// Asked at the deadline: a thread that can answer is waiting on an await, not stuck in a loop.
parentPort?.on('message', () => parentPort?.postMessage({ waiting: true } satisfies PreflightAnswer));

async function load(): Promise<void> {
  const mod = await importModule(pathToFileURL(input.abs).href);
  await pickExport(mod, (message) => new Error(message));
}

// An await on nothing would let this thread end as if the module had called process.exit: held
// open until it answers, such a module meets the deadline instead, as in the main thread.
const hold = setInterval(() => undefined, 60_000);
// The package the module imports is known to load: loaded before the deadline starts, the
// deadline is the module's own (and it loads without tsx's hooks, preloadPackage).
await preloadPackage();
// A throw or a rejection is named by the load in the main thread, which knows the file's lines.
answer({ started: true });
load().then(
  () => answer({ ok: true }),
  () => answer({ ok: false }),
).finally(() => clearInterval(hold));
