// Fresh namespaces for the cluster benchmark, straight to the API server as admin (not
// through any measured proxy): create, wait for its default ServiceAccount (Pods are
// rejected until it exists), and delete, waiting until it is gone so the controllers are
// idle before the next run.
import { randomBytes } from 'node:crypto';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';

const POLL_MS = 250;

export class Namespaces {
  private readonly core: CoreV1Api;

  constructor(kubeconfigPath: string) {
    const config = new KubeConfig();
    config.loadFromFile(kubeconfigPath);
    this.core = config.makeApiClient(CoreV1Api);
  }

  async create(prefix: string, timeoutMs = 60_000): Promise<string> {
    const name = `${prefix}-${randomBytes(3).toString('hex')}`;
    await this.core.createNamespace({ body: { metadata: { name } } });
    await until(timeoutMs, `ServiceAccount ${name}/default`, async () => {
      try {
        await this.core.readNamespacedServiceAccount({ name: 'default', namespace: name });
        return true;
      } catch (error) {
        if (statusOf(error) === 404) return false;
        throw error;
      }
    });
    return name;
  }

  /** Deletes the namespace; resolves once it is gone (false if still there at the timeout). */
  async delete(name: string, timeoutMs = 300_000): Promise<boolean> {
    try {
      await this.core.deleteNamespace({ name });
    } catch (error) {
      if (statusOf(error) === 404) return true;
      throw error;
    }
    try {
      await until(timeoutMs, `namespace ${name} to be deleted`, async () => {
        try {
          await this.core.readNamespace({ name });
          return false;
        } catch (error) {
          if (statusOf(error) === 404) return true;
          throw error;
        }
      });
      return true;
    } catch {
      return false;
    }
  }
}

function statusOf(error: unknown): number | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'number' ? error.code : undefined;
}

async function until(timeoutMs: number, what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
