// Messages between a benchmark and its observer process (observer-child.ts).
import type { ObservationsOf, ObservedResource } from './observations.js';

export interface ObserverChildInput {
  readonly kubeconfigPath: string;
  readonly namespace: string;
  readonly resources: readonly ObservedResource[];
}

export type ObserverMessage =
  | { readonly type: 'ready' }
  | {
      readonly type: 'events';
      readonly events: ReadonlyArray<{ resource: ObservedResource; observation: ObservationsOf[ObservedResource] }>;
    }
  | { readonly type: 'reconnect'; readonly resource: ObservedResource }
  | { readonly type: 'failed'; readonly resource: ObservedResource; readonly message: string }
  | { readonly type: 'flushed' };

export type ObserverParentMessage = { readonly type: 'flush' } | { readonly type: 'stop' };
