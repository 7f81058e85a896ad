// Module hooks (off the main thread): appends each loaded module's URL to $FG_MODULE_TRACE.
import { appendFileSync } from 'node:fs';

export async function load(url, context, next) {
  if (process.env.FG_MODULE_TRACE) appendFileSync(process.env.FG_MODULE_TRACE, `${url}\n`);
  return next(url, context);
}
