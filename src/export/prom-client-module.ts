/**
 * prom-client, loaded when the first registry is made rather than when a module naming it is
 * imported: its ~35 modules (~45 ms) were start-up that every scenario importing `flowgauge` and
 * every run exporting nothing paid. Only `export/` reaches it (docs/architecture.md).
 */
import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';

const require = createRequire(import.meta.url);
let lib: typeof PromClient | undefined;

/** prom-client, loaded on first use. */
export function promClient(): typeof PromClient {
  return (lib ??= require('prom-client') as typeof PromClient);
}
