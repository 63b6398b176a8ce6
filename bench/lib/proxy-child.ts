// Child process: the run's ApiProxy (test/support/api-proxy.ts), in its own process so
// that forwarding hundreds of requests never delays the parent's observer. Protocol over
// the IPC channel:
//   child -> parent  { type: 'ready', kubeconfigPath }        once listening
//   parent -> child  { type: 'report' }
//   child -> parent  { type: 'report', counts, log }           then the child closes and exits
//   parent -> child  { type: 'peek' }
//   child -> parent  { type: 'peek', counts, log }             the counts so far; it keeps running
import { ApiProxy } from '../../test/support/api-proxy.js';
import type { ProxyMessage, ProxyRequestSummary } from './proxy-protocol.js';

const kubeconfigPath = process.argv[2];
if (!kubeconfigPath || !process.send) throw new Error('usage: proxy-child.ts <admin kubeconfig> (with an IPC channel)');
const send = (message: ProxyMessage): void => {
  process.send?.(message);
};

const proxy = await ApiProxy.start(kubeconfigPath);
const proxyKubeconfig = proxy.writeKubeconfig(kubeconfigPath);

let closing: Promise<void> | undefined;
const close = (): Promise<void> => (closing ??= proxy.close());

process.on('message', (message: { type?: string }) => {
  if (message.type === 'peek') {
    send({ type: 'peek', counts: { ...proxy.counts }, log: summaries() });
    return;
  }
  if (message.type !== 'report') return;
  const log = summaries();
  // Disconnect only once the report is flushed: a large report (thousands of requests)
  // is still queued when close() resolves, and disconnecting would drop it.
  process.send?.({ type: 'report', counts: { ...proxy.counts }, log } satisfies ProxyMessage, undefined, {}, () => {
    void close().then(() => process.disconnect());
  });
});

function summaries(): ProxyRequestSummary[] {
  return proxy.log.map((request) => {
    const resourceVersion = request.query.get('resourceVersion');
    return {
      method: request.method,
      path: request.path,
      watch: request.watch,
      streamingList: request.watch && request.query.get('sendInitialEvents') === 'true',
      ...(request.watch && resourceVersion ? { resourceVersion } : {}),
      at: request.at,
    };
  });
}
// Once the channel is gone (report sent, or the parent died), or on a signal (Ctrl-C
// reaches the whole process group), close (removing the proxy's temp dir) and leave.
const leave = (): void => {
  void close().finally(() => process.exit(0));
};
process.on('disconnect', leave);
process.once('SIGINT', leave);
process.once('SIGTERM', leave);

send({ type: 'ready', kubeconfigPath: proxyKubeconfig });
