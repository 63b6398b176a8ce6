// The parent's side of the independent observer: starts observer-child.ts for a namespace's
// resources and keeps, in arrival order, every observation it sends. The stamps are the
// child's; the parent only stores them, so its own load never shows in them.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ObservationsOf, ObservedResource } from './observations.js';
import type { ObserverChildInput, ObserverMessage, ObserverParentMessage } from './observer-protocol.js';
import { pinProcesses } from './pinning.js';
import { trackChild } from './runners.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const OBSERVER_CHILD = join(HERE, 'observer-child.ts');
const START_TIMEOUT_MS = 60_000;
const FLUSH_TIMEOUT_MS = 10_000;
/** A nice value below every process the benchmarks measure (theirs is 0). */
const OBSERVER_PRIORITY = -10;

type Listener<R extends ObservedResource> = (observation: ObservationsOf[R]) => void;

let observerCpus: string | undefined;

/**
 * Where the observers started from now on run: on `cpus` (the control plane's, niced below
 * them), so that an event's stamp neither waits for the measured clients nor takes their
 * core. Without it they share the clients' cores at nice -10, above the clients.
 */
export function observersOn(cpus: string): void {
  observerCpus = cpus;
}

function place(pid: number | undefined): void {
  if (pid === undefined) return;
  if (observerCpus !== undefined) {
    if (pinProcesses(observerCpus, [pid])) return;
    process.stderr.write(
      `[observer] could not pin it to CPU(s) ${observerCpus}: it shares the clients' cores at nice ${OBSERVER_PRIORITY}\n`,
    );
  }
  try {
    setPriority(pid, OBSERVER_PRIORITY);
  } catch (error) {
    // Not silent: the run goes on, and its log says its stamps may wait for a core.
    process.stderr.write(
      `[observer] nice ${OBSERVER_PRIORITY} refused (${error instanceof Error ? error.message : String(error)}): its stamps may wait for a core\n`,
    );
  }
}

export class ObserverProcess {
  /** Watch connections the observer had to re-open (server closes); ideally 0. */
  reconnects = 0;
  /** Watches that could not be resumed, with why. */
  readonly failures: string[] = [];
  private readonly listeners = new Map<ObservedResource, Array<Listener<never>>>();
  private readonly waiters = new Map<ObserverMessage['type'], Array<(arrived: boolean) => void>>();
  private exited = false;

  private constructor(private readonly child: ReturnType<typeof spawn>) {}

  /** Resolves once every watch is established (the server answered 200). */
  static async start(kubeconfigPath: string, namespace: string, resources: readonly ObservedResource[]): Promise<ObserverProcess> {
    const dir = mkdtempSync(join(tmpdir(), 'kp-bench-observer-'));
    const inputPath = join(dir, 'input.json');
    const input: ObserverChildInput = { kubeconfigPath, namespace, resources };
    writeFileSync(inputPath, JSON.stringify(input));
    const child = spawn(process.execPath, ['--import', 'tsx', OBSERVER_CHILD, inputPath], {
      cwd: join(HERE, '..', '..'),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    void trackChild(child).then(() => rmSync(dir, { recursive: true, force: true }));
    const observer = new ObserverProcess(child);
    place(child.pid);
    child.on('message', (message: ObserverMessage) => observer.receive(message));
    child.once('exit', () => {
      observer.exited = true;
      for (const wake of [...observer.waiters.values()].flat()) wake(false);
      observer.waiters.clear();
    });
    try {
      await observer.next('ready', START_TIMEOUT_MS);
    } catch (error) {
      child.kill('SIGKILL');
      throw new Error(`observer: ${observer.failures.join('; ') || (error instanceof Error ? error.message : String(error))}`);
    }
    return observer;
  }

  /** Calls `listener` with every observation of `resource`, in arrival order. */
  on<R extends ObservedResource>(resource: R, listener: Listener<R>): void {
    const list = this.listeners.get(resource) ?? [];
    list.push(listener);
    this.listeners.set(resource, list);
  }

  /** Waits until everything the child stamped so far has arrived, then ends it. Bounded; never throws (see failures). */
  async stop(): Promise<void> {
    if (this.exited) return;
    try {
      this.send({ type: 'flush' });
      await this.next('flushed', FLUSH_TIMEOUT_MS);
      this.send({ type: 'stop' });
    } catch (error) {
      this.failures.push(`stop: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      if (!this.exited) this.child.kill('SIGTERM');
    }
  }

  private send(message: ObserverParentMessage): void {
    if (this.child.connected) this.child.send(message);
  }

  private receive(message: ObserverMessage): void {
    if (message.type === 'events') {
      for (const { resource, observation } of message.events) {
        for (const listener of this.listeners.get(resource) ?? []) listener(observation as never);
      }
    } else if (message.type === 'reconnect') this.reconnects += 1;
    else if (message.type === 'failed') this.failures.push(`${message.resource}: ${message.message}`);
    for (const wake of this.waiters.get(message.type)?.splice(0) ?? []) wake(true);
  }

  private async next(type: ObserverMessage['type'], timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        const exitedFirst = (): void => reject(new Error(`the observer process exited before '${type}'`));
        if (this.exited) return exitedFirst();
        timer = setTimeout(() => reject(new Error(`the observer process sent no '${type}' in ${timeoutMs} ms`)), timeoutMs);
        const list = this.waiters.get(type) ?? [];
        list.push((arrived) => (arrived ? resolve() : exitedFirst()));
        this.waiters.set(type, list);
      });
    } finally {
      clearTimeout(timer);
    }
  }
}
