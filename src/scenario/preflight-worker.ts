/**
 * The throwaway thread of a scenario module's pre-flight (`load-preflight.ts`): it imports the
 * module and settles its export, as the load in the main thread will, and says when that came
 * back. The main thread terminates it at the deadline, whatever the module's code is doing.
 * Only the import is loaded here, not the rest of the scenario part.
 */
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import { importModule, pickExport } from './module-import.js';
import type { PreflightAnswer, PreflightInput } from './load-preflight.js';

const input = workerData as PreflightInput;
const answer = (a: PreflightAnswer): void => parentPort?.postMessage(a);

async function load(): Promise<void> {
  const mod = await importModule(pathToFileURL(input.abs).href);
  await pickExport(mod, (message) => new Error(message));
}

// A throw or a rejection is named by the load in the main thread, which knows the file's lines.
load().then(
  () => answer({ ok: true }),
  () => answer({ ok: false }),
);
