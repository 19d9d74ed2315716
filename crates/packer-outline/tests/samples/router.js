/*!
 * router
 * A tiny request router.
 */

'use strict';

const { parse } = require('node:url');
const methods = require('./methods');

/**
 * Module exports.
 */

module.exports = Router;

/**
 * Make a router.
 *
 * @param {Object} options
 * @public
 */
function Router(options) {
  const opts = options || {};
  this.routes = [];
  this.strict = Boolean(opts.strict);
}

/**
 * Add a route for `method` and `path`.
 */
Router.prototype.route = function route(method, path, handler) {
  this.routes.push({ method, path, handler });
  return this;
};

Router.prototype.handle = function (req, res, next) {
  const url = parse(req.url);
  for (const route of this.routes) {
    if (route.method === req.method && route.path === url.pathname) {
      return route.handler(req, res, next);
    }
  }
  next();
};

// One shortcut per HTTP method.
methods.forEach(function (method) {
  Router.prototype[method] = function (path, handler) {
    return this.route(method.toUpperCase(), path, handler);
  };
});

class Layer {
  #regexp;
  name = 'layer';

  constructor(path, fn) {
    this.path = path;
    this.fn = fn;
    this.#regexp = new RegExp('^' + path);
  }

  match(path) {
    return this.#regexp.test(path);
  }
}

const normalize = (path) => {
  return path.endsWith('/') ? path.slice(0, -1) : path;
};

exports.Layer = Layer;
exports.normalize = normalize;
