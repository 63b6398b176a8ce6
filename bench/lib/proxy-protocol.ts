// Messages between bench/run.ts and its proxy child (bench/lib/proxy-child.ts).
import type { RequestCounts } from '../../test/support/api-proxy.js';

export interface ProxyRequestSummary {
  readonly method: string;
  readonly path: string;
  readonly watch: boolean;
  /** A watch that starts with a streaming list (sendInitialEvents). */
  readonly streamingList: boolean;
  /** A watch resumed from this resourceVersion (not a streaming list). */
  readonly resourceVersion?: string;
  /** When the proxy received it (hrNow). */
  readonly at: number;
}

export type ProxyMessage =
  | { readonly type: 'ready'; readonly kubeconfigPath: string }
  | { readonly type: 'report'; readonly counts: RequestCounts; readonly log: readonly ProxyRequestSummary[] }
  | { readonly type: 'peek'; readonly counts: RequestCounts; readonly log: readonly ProxyRequestSummary[] };
