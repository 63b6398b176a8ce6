'use strict';
// Manager's utils/cli.js: `--key=value` arguments as { key: value }.
function parseArgs(argv = process.argv.slice(2)) {
  const args = {};
  for (const arg of argv) {
    const match = /^--([^=]+)(?:=(.*))?$/.exec(arg);
    if (match) args[match[1]] = match[2] ?? true;
  }
  return args;
}

module.exports = { parseArgs };
