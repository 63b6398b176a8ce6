'use strict';
// A Manager-shaped API server for the tests: /api/v1/sites/:siteId/nodes (routers/nodes.cjs)
// and the start/stop routes of /api/v1/sites/:siteId/containers (routers/containers.cjs),
// over the models of MANAGER_MODELS. Every request is an admin's (the session Manager's
// login gives), since the tests are about the routes, not about signing in.
const express = require('express');
const { errorHandler } = require('./routers/api.cjs');

function managerApp() {
  const app = express();
  app.use(express.json());
  app.use((req, _res, next) => {
    req.session = { user: 'admin', isAdmin: true };
    next();
  });
  app.use('/api/v1/sites/:siteId/nodes', require('./routers/nodes.cjs'));
  app.use('/api/v1/sites/:siteId/containers', require('./routers/containers.cjs'));
  app.use(errorHandler);
  return app;
}

module.exports = { managerApp };
