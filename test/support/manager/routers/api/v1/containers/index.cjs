'use strict';
// Stands at Manager's path routers/api/v1/containers so that sessions-server.cjs requires it
// as Manager's server.js does (`require('./routers/api/v1/containers')`): the terminal and log
// routes of ../../../container-sessions.cjs.
module.exports = require('../../../container-sessions.cjs');
