// Manager's app.js before the guide, in our words around the lines the guide names.
const express = require('express');
const session = require('express-session');

function buildApp({ sessionSecrets } = {}) {
  const app = express();

  app.use(session({
    secret: sessionSecrets,
    resave: false,
    saveUninitialized: false,
  }));

  app.use('/api/v1', require('./routers/api'));
  return app;
}

module.exports = { buildApp };
