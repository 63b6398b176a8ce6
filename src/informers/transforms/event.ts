// An Event as the storage event informer caches it: what the storage diagnosis reads, that
// is what it is about, why, and when it was last seen.
import type { CoreV1Event } from '../../kube/objects.js';
import { Fields } from './fields.js';

const INVOLVED_OBJECT = ['kind', 'name', 'uid'] as const;

export function cachedEventFields(event: CoreV1Event): CoreV1Event {
  const f = new Fields('Event', event);
  const root = f.root(event);
  const metadata = f.object(root.metadata, 'metadata');
  const involved = f.object(root.involvedObject, 'involvedObject');
  const series = f.object(root.series, 'series');
  const time = (value: unknown, field: string): string | undefined =>
    value instanceof Date ? value.toISOString() : f.string(value, field);
  return {
    metadata: {
      name: f.string(metadata?.name, 'metadata.name'),
      namespace: f.common(metadata?.namespace, 'metadata.namespace'),
      uid: f.string(metadata?.uid, 'metadata.uid'),
      resourceVersion: f.string(metadata?.resourceVersion, 'metadata.resourceVersion'),
      creationTimestamp: time(metadata?.creationTimestamp, 'metadata.creationTimestamp'),
    },
    involvedObject: involved && Object.fromEntries(INVOLVED_OBJECT.map((key) => [key, f.string(involved[key], `involvedObject.${key}`)])),
    reason: f.string(root.reason, 'reason'),
    message: f.string(root.message, 'message'),
    type: f.string(root.type, 'type'),
    lastTimestamp: time(root.lastTimestamp, 'lastTimestamp'),
    eventTime: time(root.eventTime, 'eventTime'),
    firstTimestamp: time(root.firstTimestamp, 'firstTimestamp'),
    series: series && { lastObservedTime: time(series.lastObservedTime, 'series.lastObservedTime') },
  };
}
