'use strict';
/**
 * `require('flowgauge')` from CommonJS. flowgauge is an ES module: Node >= 20.19 and >= 22.12
 * load it synchronously (require(esm)) and this hands it over; an older Node, or one started with
 * --no-experimental-require-module, is told to import() it instead of a bare ERR_REQUIRE_ESM.
 */
module.exports = function load(file, name) {
  try {
    return require(file);
  } catch (err) {
    const code = err !== null && typeof err === 'object' ? err.code : undefined;
    if (code !== 'ERR_REQUIRE_ESM' && code !== 'ERR_REQUIRE_ASYNC_MODULE') throw err;
    const e = new Error(
      `${name} is an ES module and this Node (${process.versions.node}) cannot require() it: ` +
        `use \`const fg = await import('${name}')\` (or import from an .mjs file), or a Node whose require() loads ES modules (>= 20.19 or >= 22.12, not started with --no-experimental-require-module)`,
      { cause: err },
    );
    e.code = code;
    throw e;
  }
};
