// Streaming a provisioning to the browser from an Express app (Manager is CommonJS).
//
//   POST /jobs                 starts a provisioning; answers { jobId, events }
//   GET  /jobs/:jobId/events   its progress as Server-Sent Events, for any number of tabs
//
// Run it: PORT=3000 node examples/express-live.cjs <kubeconfig> [namespace]
'use strict';
const express = require('express');
const { finalize } = require('rxjs');
const { EventChannel, KubernetesApi, parseWorkloadSpec, provision$, toEventStream } = require('kube-provisioner');

/** How long a finished job's events stay available to late or reconnecting tabs. */
const KEEP_FINISHED_MS = 10 * 60 * 1000;

function createApp(api) {
  const app = express();
  const jobs = new Map(); // jobId -> EventChannel
  let lastJob = 0;

  app.post('/jobs', express.json(), (req, res) => {
    try {
      parseWorkloadSpec(req.body); // bad input: 400 naming every field, nothing started
    } catch (error) {
      return res.status(400).json({ name: error.name, message: error.message, issues: error.issues });
    }
    const jobId = String((lastJob += 1));
    // The channel subscribes once, now, and owns the provisioning: tabs opening and
    // closing never start or abort it. It keeps the last 500 events for reconnects.
    const events$ = provision$(api, req.body).pipe(finalize(() => setTimeout(() => jobs.delete(jobId), KEEP_FINISHED_MS).unref()));
    jobs.set(jobId, new EventChannel(events$, { replay: 500 }));
    res.status(202).json({ jobId, events: `/jobs/${jobId}/events` });
  });

  app.get('/jobs/:jobId/events', (req, res) => {
    const channel = jobs.get(req.params.jobId);
    if (!channel) return res.status(404).json({ name: 'NotFound', message: 'no such job' });
    // Resumes after the browser's Last-Event-ID header; ends the response after the
    // job's `ready` (then `stream-end`) or its `stream-error`.
    toEventStream(channel, res);
  });

  // Close every job's channel (aborting the provisionings still running) on shutdown.
  app.closeJobs = () => {
    for (const channel of jobs.values()) channel.close();
    jobs.clear();
  };
  return app;
}

module.exports = { createApp };

if (require.main === module) {
  const [kubeconfigPath, namespace] = process.argv.slice(2);
  const api = KubernetesApi.fromConfig({ kubeconfigPath, ...(namespace ? { namespace } : {}) });
  const app = createApp(api);
  const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
    console.log(`listening on http://127.0.0.1:${server.address().port}`);
  });
  process.once('SIGINT', () => {
    app.closeJobs(); // ends the event streams too, so close() does not wait for them
    server.close();
  });
}
