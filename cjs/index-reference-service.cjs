'use strict';
// require('flowgauge/reference-service'): the ES module itself where Node can require() it, else a message naming import().
module.exports = require('./load.cjs')(require.resolve('../dist/index-reference-service.js'), 'flowgauge/reference-service');
