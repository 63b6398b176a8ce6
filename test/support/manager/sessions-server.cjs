'use strict';
// Manager's app.js and server.js, reduced to what the terminal and log routes need: a
// session middleware (Manager's is express-session; here a cookie `session=<user>` names
// the user, and `admin` is an admin), the container routes (routers/container-sessions.cjs,
// required at Manager's path through routers/api/v1/containers/), and the upgrade handler
// on the HTTP server. The lines marked "kube-provisioner" are the
// ones docs/manager.md shows for server.js (its test checks they are here, as written).
const express = require('express');
const { errorHandler } = require('./routers/api.cjs');
// kube-provisioner: the terminal's upgrade handler, with the containers router's access rule.
const { containerTerminal } = require('kube-provisioner/manager');
const { containerAccess } = require('./routers/api/v1/containers');

function sessionMiddleware(req, _res, next) {
  const user = /(?:^|;\s*)session=([a-z0-9-]+)/.exec(req.headers.cookie ?? '')?.[1];
  if (user) req.session = { user, isAdmin: user === 'admin' };
  next();
}

/** Starts the app on a loopback port; resolves to { server, terminal, port }. */
async function startSessionsServer() {
  const app = express();
  app.use(sessionMiddleware);
  // kube-provisioner: the session middleware, kept for the terminal's upgrade in server.js.
  app.set('sessionMiddleware', sessionMiddleware);
  app.use('/api/v1/sites/:siteId/containers', require('./routers/api/v1/containers'));
  app.use(errorHandler);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));

  // kube-provisioner: a container's terminal, over a WebSocket on /api/v1/sites/:siteId/containers/:id/terminal.
  const terminal = containerTerminal({ authorize: containerAccess, instance: process.env.MANAGER_INSTANCE_ID });
  server.on('upgrade', (req, socket, head) => {
    // The upgrade does not pass through Express: the session is read from its cookie first.
    app.get('sessionMiddleware')(req, {}, () => {
      if (!terminal.handleUpgrade(req, socket, head)) socket.destroy();
    });
  });

  return { server, terminal, port: server.address().port };
}

module.exports = { startSessionsServer, sessionMiddleware };
