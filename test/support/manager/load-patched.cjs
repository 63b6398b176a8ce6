'use strict';
// Loads Manager's files as docs/manager.md leaves them (a folder laid out as create-a-container/,
// argv[2]) with Manager's own modules they require (its models index, middlewares, utils)
// stood in for by a stub that answers anything, and packages (express, sequelize, the kit)
// from this repository. Prints, as JSON, the routes each patched router declares and the
// attributes of the patched Node model (on an in-memory SQLite database): what the routers
// and the model hold, not what a request does. Run: node load-patched.cjs <dir>
const Module = require('node:module');
const path = require('node:path');

const dir = path.resolve(process.argv[2]);
const fromRepository = Module.createRequire(path.join(__dirname, '..', '..', '..', 'package.json'));
/** Manager's module of the same name: a function and an object with every property, each again the stub. */
const stub = new Proxy(function stub() {}, {
  get: (_target, key) => (key === 'then' || typeof key === 'symbol' ? undefined : stub),
  apply: () => stub,
  construct: () => stub,
});

const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (parent?.filename?.startsWith(dir + path.sep) && !Module.isBuiltin(request)) {
    if (!request.startsWith('.') && !path.isAbsolute(request)) return fromRepository(request);
    try {
      Module._resolveFilename(request, parent, isMain);
    } catch {
      return stub;
    }
  }
  return load.call(this, request, parent, isMain);
};

const routes = (file) =>
  require(path.join(dir, file))
    .stack.filter((layer) => layer.route)
    .flatMap((layer) => Object.keys(layer.route.methods).map((method) => `${method} ${layer.route.path}`));

const { Sequelize, DataTypes } = fromRepository('sequelize');
const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const Node = require(path.join(dir, 'models/node.js'))(sequelize, DataTypes);

console.log(
  JSON.stringify({
    'routers/api/v1/containers.js': routes('routers/api/v1/containers.js'),
    'routers/api/v1/nodes.js': routes('routers/api/v1/nodes.js'),
    nodeAttributes: Object.keys(Node.getAttributes()),
  }),
);
sequelize.close();
