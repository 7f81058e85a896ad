'use strict';
// require('flowgauge/client'): the ES module itself where Node can require() it, else a message naming import().
module.exports = require('./load.cjs')(require.resolve('../dist/index-client.js'), 'flowgauge/client');
