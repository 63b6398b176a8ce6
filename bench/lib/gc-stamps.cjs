// Preloaded (--require) into a measured Node process by bench:terminal-and-logs --diagnose:
// each garbage-collection pause, stamped on the machine's monotonic clock (the clock of
// hrNow and of Python's time.monotonic), written to $BENCH_GC_STAMPS as JSON at exit.
// Nothing goes to stdout: under a pseudo-terminal that would be read as the remote echo.
const { writeFileSync } = require('node:fs');

const file = process.env.BENCH_GC_STAMPS;
if (file) {
  const offset = Number(process.hrtime.bigint()) / 1e6 - performance.now();
  const pauses = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses.push({ start: entry.startTime + offset, ms: entry.duration, kind: entry.detail?.kind });
  }).observe({ entryTypes: ['gc'] });
  process.on('exit', () => writeFileSync(file, JSON.stringify(pauses)));
}
