/**
 * Vitest setup file: in every test file, the threads a run starts in-process (the scenario's
 * pre-flight, the embedded service, a run's workers) start from the compiled package, as the
 * CLIs the tests spawn do (`threads-from-dist.ts` says why and how).
 */
import { vi } from 'vitest';

vi.mock('node:worker_threads', async (original) => (await import('./threads-from-dist.js')).threadsFromDist(await original()));
