/** Live progress: hands each tick's figures to a display (the CLI's progress line). */
import type { RunObserver } from '../observer.js';
import type { RunProgress } from '../progress.js';

/** The progress observer. */
export function createProgressObserver(show: (p: RunProgress) => void): RunObserver {
  return { name: 'progress', tick: show };
}
