'use strict';
// The helpers of Manager's middlewares/api.js that its routers use, in our words: errors
// as { error: { code, message } } with their status, results as { data }.
class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const asyncHandler = (handler) => (req, res, next) => Promise.resolve(handler(req, res, next)).catch(next);
const ok = (res, data) => res.status(200).json({ data });
const created = (res, data) => res.status(201).json({ data });

// Express tells an error handler by its four parameters.
function errorHandler(error, req, res, _next) {
  if (error instanceof ApiError) return res.status(error.status).json({ error: { code: error.code, message: error.message } });
  return res.status(500).json({ error: { code: 'internal', message: error.message } });
}

module.exports = { ApiError, asyncHandler, created, errorHandler, ok };
