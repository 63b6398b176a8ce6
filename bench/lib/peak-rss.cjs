// Loaded with `node --require` by the startup benchmark: on exit, writes the process's peak
// resident set size (KiB, from getrusage) to the file named by KUBE_PROVISIONER_PEAK_RSS_FILE.
'use strict';
process.on('exit', () => {
  require('node:fs').writeFileSync(process.env.KUBE_PROVISIONER_PEAK_RSS_FILE, String(process.resourceUsage().maxRSS));
});
