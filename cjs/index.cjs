'use strict';
// require('flowgauge'): the ES module itself where Node can require() it, else a message naming import().
module.exports = require('./load.cjs')(require.resolve('../dist/index.js'), 'flowgauge');
