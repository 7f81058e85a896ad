/**
 * How a handle of the reference service keeps its tokens out of logs: the same for the service
 * in this thread (`service.ts`) and in its own (`service-thread.ts`).
 */
import { inspect } from 'node:util';

/**
 * Adds `secrets` as non-enumerable properties, and makes `util.inspect` and `JSON.stringify`
 * show `shown` instead of the object, so a logged handle never prints a token.
 */
export function hideSecrets<T extends object>(target: T, secrets: Record<string, unknown>, shown: unknown): T {
  for (const [k, v] of Object.entries(secrets)) Object.defineProperty(target, k, { value: v, enumerable: false });
  Object.defineProperty(target, inspect.custom, { value: () => shown, enumerable: false });
  Object.defineProperty(target, 'toJSON', { value: () => shown, enumerable: false });
  return target;
}
