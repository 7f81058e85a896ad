// `node --import <this file>`: records the URL of every module the process loads: ES modules
// through the hooks (hooks.mjs), and CommonJS files through the CJS loader itself, which the hooks
// do not see on Node 20 when a module is `require`d (a package's internals, or `createRequire`).
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import { pathToFileURL } from 'node:url';

register(new URL('./hooks.mjs', import.meta.url));

const file = process.env.FG_MODULE_TRACE;
if (file) {
  const load = Module._load;
  Module._load = function traced(request, parent, isMain) {
    const exports = load.call(this, request, parent, isMain);
    try {
      const resolved = Module._resolveFilename(request, parent, isMain);
      if (resolved.startsWith('/')) appendFileSync(file, `${pathToFileURL(resolved).href}\n`);
    } catch {
      // a built-in, or a name only the loader's own fallbacks resolve: nothing to record
    }
    return exports;
  };
}
