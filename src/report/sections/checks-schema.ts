/**
 * report@1 `checks`: the zod schema, and the types taken from it (`z.output`, readonly at every
 * depth). How the section is projected and merged is in `checks.ts`; the whole report's schema is
 * put together in `../report-schema.ts`.
 */
import { z } from 'zod';
import { count, obj, str, type DeepReadonly } from './schema-kit.js';

/** report@1 `checks`. */
export const checksSchema = z.record(z.string(), obj({ passes: count, fails: count }, { examples: z.array(obj({ expected: str, actual: str })) }));

/**
 * `checks` (added in @1): named journey checks, `{ passes, fails, examples? }` each; `examples`
 * (added in @1) holds up to 3 distinct failures as `{ expected, actual }` text of ≤ 200 characters.
 */
export type ChecksReport = DeepReadonly<z.output<typeof checksSchema>>;
