// The root of the project's error hierarchy. Each class has a const `name`, a short message
// with context (namespace/name, verb, resource) and the original error in `cause`. Messages
// never contain a token, client key or certificate: the client's own error (which embeds
// response bodies and headers) is only ever attached as `cause`, and every error leaving
// the library is masked (src/mask.ts) on its way out. Every message is one
// line: control characters in echoed or relayed text are escaped here, once for all.
//
// The errors are grouped by concern beside this file (input, kubeconfig, api, rollout,
// operation); the errors of the workload lifecycle live with the steps that raise them
// (src/workload/), where the types they carry are defined. A failed provisioning's
// `cleanup` report is declared by src/workload/operations/cleanup.ts, which makes it.
import { escapeControlCharacters } from '../text.js';

export class KubeProvisionerError extends Error {
  override readonly name: string = 'KubeProvisionerError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(escapeControlCharacters(message), options);
  }
}

/** One Kubernetes object an error is about. */
export interface ObjectReference {
  /** The kind as the API names it: `Deployment`, `Pod`, ... */
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}
