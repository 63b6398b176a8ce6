// Errors of the kubeconfig, all reported before any request is sent.
import { KubeProvisionerError } from './base.js';

export class KubeconfigNotFoundError extends KubeProvisionerError {
  override readonly name = 'KubeconfigNotFoundError';
  readonly path: string;
  constructor(path: string, options?: { cause?: unknown }) {
    super(`Kubeconfig not found at ${path}`, options);
    this.path = path;
  }
}

export class KubeconfigInvalidError extends KubeProvisionerError {
  override readonly name = 'KubeconfigInvalidError';
  readonly path: string;
  constructor(path: string, detail: string, options?: { cause?: unknown }) {
    super(`Kubeconfig at ${path} is invalid: ${detail}`, options);
    this.path = path;
  }
}

/**
 * The kubeconfig's exec credential plugin failed: it could not be started, exited non-zero,
 * or printed something other than an ExecCredential. `detail` is its output, masked (every
 * credential the kubeconfig holds, and every credential shape) and cut to a few hundred
 * characters.
 */
export class ExecPluginError extends KubeProvisionerError {
  override readonly name = 'ExecPluginError';
  readonly command: string;
  readonly detail: string;
  constructor(command: string, detail: string) {
    super(`The kubeconfig's exec credential plugin "${command}" failed${detail ? `: ${detail}` : ''}`);
    this.command = command;
    this.detail = detail;
  }
}

export class UnknownContextError extends KubeProvisionerError {
  override readonly name = 'UnknownContextError';
  readonly context: string;
  readonly available: readonly string[];
  constructor(context: string, available: readonly string[]) {
    super(`Context "${context}" is not in the kubeconfig (available: ${available.length ? available.join(', ') : 'none'})`);
    this.context = context;
    this.available = available;
  }
}
