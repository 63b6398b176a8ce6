// Messages between bench/run.ts and its proxy child (bench/lib/proxy-child.ts).
import type { RequestCounts } from '../../test/support/api-proxy.js';

export interface ProxyRequestSummary {
  readonly method: string;
  readonly path: string;
  readonly watch: boolean;
}

export type ProxyMessage =
  | { readonly type: 'ready'; readonly kubeconfigPath: string }
  | { readonly type: 'report'; readonly counts: RequestCounts; readonly log: readonly ProxyRequestSummary[] };
