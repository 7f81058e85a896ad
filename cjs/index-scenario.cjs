'use strict';
// require('flowgauge/scenario'): the ES module itself where Node can require() it, else a message naming import().
module.exports = require('./load.cjs')(require.resolve('../dist/index-scenario.js'), 'flowgauge/scenario');
