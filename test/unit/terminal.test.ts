// openTerminal() and execCommand() against a FAKE API server on 127.0.0.1 (test/support/
// fake-pod-api.ts): a `ws` server that speaks the Kubernetes channel protocol the way each
// test makes it (v5, v4 only, a missing shell, a peer that never answers pings, one that
// never answers the upgrade). The real transport, KubernetesApi and library code run.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { ApiTimeoutError, ForbiddenError } from '../../src/errors/api.js';
import {
  ExecConnectionLostError,
  ExecFailedError,
  ExecSessionTimeoutError,
  KubeletUnreachableError,
  NoRunningContainerError,
  ShellNotFoundError,
} from '../../src/errors/exec.js';
import { InvalidOptionError } from '../../src/errors/input.js';
import { WorkloadOwnershipError } from '../../src/workload/toolkit/ownership.js';
import { execCommand, openTerminal } from '../../src/workload/reads/terminal.js';
import { containerStatus, pod as podFixture, states } from '../support/fixtures.js';
import {
  CONTAINER,
  LABELS,
  NS,
  WORKLOAD,
  exitFrame,
  frame,
  notFoundFrame,
  startFakePodApi,
  workloadPod,
  type FakePodApi,
} from '../support/fake-pod-api.js';
import type { V1Pod } from '../../src/kube/objects.js';

const PROVIDER_ID = `${NS}/${WORKLOAD}`;
let fake: FakePodApi;

beforeEach(async () => {
  fake = await startFakePodApi();
});
afterEach(async () => {
  await fake.close();
});

/** Frames the fake received, decoded: [channel, payload text]. */
function received(socket: WebSocket): [number, string][] {
  const frames: [number, string][] = [];
  socket.on('message', (data: Buffer) => frames.push([data[0] ?? -1, data.subarray(1).toString('utf8')]));
  return frames;
}

const until = async (check: () => boolean, ms = 3_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('a command in the workload container', () => {
  it('runs the argv in the running container of the current Pod, with output and its exit status (v5)', async () => {
    fake.exec = (socket) => {
      socket.send(frame(1, 'out\n'));
      socket.send(frame(2, 'err\n'));
      socket.send(exitFrame(3));
      socket.close();
    };
    const result = await execCommand(fake.client, PROVIDER_ID, ['sh', '-c', 'echo out; echo err >&2; exit 3']);
    expect(result).toEqual({ exitCode: 3, stdout: 'out\n', stderr: 'err\n', truncated: false });
    const [request] = fake.seen.exec;
    expect(request?.protocol).toBe('v5.channel.k8s.io');
    expect(request?.pod).toBe('web-7c9f5d-aaaaa');
    expect(request?.command).toEqual(['sh', '-c', 'echo out; echo err >&2; exit 3']);
    expect(request?.query.get('container')).toBe(CONTAINER);
    expect(request?.query.get('tty')).toBe('false');
    expect(request?.query.get('stderr')).toBe('true');
    expect(request?.query.get('stdin')).toBe('false');
  });

  it('falls back to v4 when the server speaks only v4, and reads the exit status there', async () => {
    fake.protocols = ['v4.channel.k8s.io'];
    fake.exec = (socket) => {
      socket.send(exitFrame(0));
      socket.close();
    };
    const result = await execCommand(fake.client, PROVIDER_ID, ['true']);
    expect(result.exitCode).toBe(0);
    expect(fake.seen.exec[0]?.protocol).toBe('v4.channel.k8s.io');
  });

  it('gives input on stdin and then the v5 close frame for stdin', async () => {
    let frames: [number, string][] = [];
    fake.exec = (socket) => {
      frames = received(socket);
      socket.on('message', (data: Buffer) => {
        if (data[0] === 255 && data[1] === 0) {
          socket.send(
            frame(
              1,
              frames
                .filter(([channel]) => channel === 0)
                .map(([, text]) => text)
                .join(''),
            ),
          );
          socket.send(exitFrame(0));
          socket.close();
        }
      });
    };
    const result = await execCommand(fake.client, PROVIDER_ID, ['cat'], { input: 'hello' });
    expect(result.stdout).toBe('hello');
    expect(frames.map(([channel]) => channel)).toEqual([0, 255]);
    expect(fake.seen.exec[0]?.query.get('stdin')).toBe('true');
  });

  it('keeps at most maxOutputBytes of each stream and says it cut', async () => {
    fake.exec = (socket) => {
      socket.send(frame(1, 'x'.repeat(100)));
      socket.send(exitFrame(0));
      socket.close();
    };
    const result = await execCommand(fake.client, PROVIDER_ID, ['yes'], { maxOutputBytes: 10 });
    expect(result.stdout).toBe('x'.repeat(10));
    expect(result.truncated).toBe(true);
  });

  it('names a command that cannot start (the runtime words) as ExecFailedError', async () => {
    fake.exec = (socket) => {
      socket.send(notFoundFrame('nosuch'));
      socket.close();
    };
    const error = await execCommand(fake.client, PROVIDER_ID, ['nosuch']).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ExecFailedError);
    expect((error as ExecFailedError).message).toContain('"nosuch": executable file not found');
    expect((error as ExecFailedError).message).toContain(`container ${CONTAINER} of pod ${NS}/web-7c9f5d-aaaaa`);
  });

  it('refuses a bad command before any request', async () => {
    await expect(execCommand(fake.client, PROVIDER_ID, [])).rejects.toThrow(InvalidOptionError);
    await expect(openTerminal(fake.client, PROVIDER_ID, { columns: 0, rows: 10 })).rejects.toThrow(
      /columns must be a whole number from 1 to 65535 \(got 0\)/,
    );
    expect(fake.seen.exec).toHaveLength(0);
  });
});

describe('finding the container', () => {
  it('uses the running Pod of the newest ReplicaSet, not an older one still running', async () => {
    const old = podFixture({ name: 'web-5b6d8c-old', hash: '5b6d8c', labels: LABELS }) as unknown as V1Pod;
    fake.pods = [old, workloadPod('web-7c9f5d-new')];
    fake.exec = (socket) => {
      socket.send(exitFrame(0));
      socket.close();
    };
    await execCommand(fake.client, PROVIDER_ID, ['true']);
    expect(fake.seen.exec[0]?.pod).toBe('web-7c9f5d-new');
  });

  it('says why there is no container to reach: what the Pods do instead', async () => {
    fake.pods = [
      podFixture({
        name: 'web-7c9f5d-wait',
        labels: LABELS,
        containerStatuses: [containerStatus({ state: states.waiting('CrashLoopBackOff') })],
      }),
    ];
    const error = await openTerminal(fake.client, PROVIDER_ID).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NoRunningContainerError);
    expect((error as Error).message).toBe(
      `workload ${NS}/${WORKLOAD} has no container to reach: it needs a running container; pod web-7c9f5d-wait is waiting (CrashLoopBackOff)`,
    );
    expect(fake.seen.exec).toHaveLength(0);
  });

  it('refuses a Deployment that is not the expected container-id', async () => {
    await expect(openTerminal(fake.client, PROVIDER_ID, { containerId: 7 })).rejects.toThrow(WorkloadOwnershipError);
    expect(fake.seen.exec).toHaveLength(0);
  });
});

describe('a terminal', () => {
  it('opens bash with a tty, sends the size first and on resize, and relays typing', async () => {
    let frames: [number, string][] = [];
    fake.exec = (socket) => {
      frames = received(socket);
      socket.send(frame(1, '$ '));
    };
    const output: string[] = [];
    const terminal = await openTerminal(fake.client, PROVIDER_ID, {
      columns: 80,
      rows: 24,
      onStdout: (data) => output.push(data.toString()),
    });
    await until(() => output.length > 0);
    terminal.write('ls\r');
    terminal.resize(120, 40);
    await until(() => frames.length === 3);
    expect(frames).toEqual([
      [4, '{"Width":80,"Height":24}'],
      [0, 'ls\r'],
      [4, '{"Width":120,"Height":40}'],
    ]);
    const request = fake.seen.exec[0];
    expect(request?.command).toEqual(['bash']);
    expect(request?.query.get('tty')).toBe('true');
    // The kubelet refuses stderr with a tty: one stream.
    expect(request?.query.get('stderr')).toBe('false');
    expect(terminal.command).toEqual(['bash']);
    await terminal.close();
  });

  it('falls back to sh when bash does not exist, giving sh what was typed meanwhile', async () => {
    const typed: string[] = [];
    fake.exec = (socket, request) => {
      if (request.command[0] === 'bash') {
        setTimeout(() => {
          socket.send(notFoundFrame('bash'));
          socket.close();
        }, 50);
        return;
      }
      socket.on('message', (data: Buffer) => {
        if (data[0] === 0) typed.push(data.subarray(1).toString());
      });
      socket.send(frame(1, '# '));
    };
    const terminal = await openTerminal(fake.client, PROVIDER_ID);
    terminal.write('id\r');
    await until(() => typed.join('') === 'id\r');
    expect(fake.seen.exec.map((request) => request.command)).toEqual([['bash'], ['sh']]);
    expect(terminal.command).toEqual(['sh']);
    await terminal.close();
  });

  it('fails with ShellNotFoundError naming the shells tried when there is none', async () => {
    fake.exec = (socket, request) => {
      socket.send(notFoundFrame(request.command[0] ?? ''));
      socket.close();
    };
    const terminal = await openTerminal(fake.client, PROVIDER_ID);
    const error = await terminal.exit.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ShellNotFoundError);
    expect((error as Error).message).toBe(
      `no shell in container ${CONTAINER} of pod ${NS}/web-7c9f5d-aaaaa: tried bash, sh; pass the command to run instead`,
    );
  });

  it('close() types Ctrl-C and Ctrl-D twice under a tty, then the stdin close frame; exit is null', async () => {
    let frames: [number, string][] = [];
    fake.exec = (socket) => {
      frames = received(socket);
    };
    const terminal = await openTerminal(fake.client, PROVIDER_ID);
    await until(() => fake.seen.openSockets === 1);
    await terminal.close();
    expect(await terminal.exit).toEqual({ exitCode: null });
    await until(() => fake.seen.openSockets === 0);
    // The runtime keeps a tty's process when stdin closes: the keys end it as a user would.
    expect(frames).toEqual([
      [0, '\u0003'],
      [0, '\u0004'],
      [0, '\u0004'],
      [255, '\u0000'],
    ]);
  });

  it('close() goes on as soon as the terminal answers a key, stops typing once the shell exits; no keys without a tty', async () => {
    let frames: [number, string][] = [];
    fake.exec = (socket) => {
      frames = received(socket);
      let eofs = 0;
      socket.on('message', (data: Buffer) => {
        if (data[0] !== 0) return;
        if (data[1] === 3) socket.send(frame(1, '^C\r\n# '));
        // The shell at its prompt exits on the first Ctrl-D.
        if (data[1] === 4 && (eofs += 1) === 1) {
          socket.send(exitFrame(0));
          socket.close();
        }
      });
    };
    const terminal = await openTerminal(fake.client, PROVIDER_ID);
    await until(() => fake.seen.openSockets === 1);
    const started = Date.now();
    await terminal.close();
    expect(Date.now() - started).toBeLessThan(250);
    expect(await terminal.exit).toEqual({ exitCode: null });
    expect(frames.filter(([channel]) => channel === 0)).toEqual([
      [0, '\u0003'],
      [0, '\u0004'],
    ]);
    const plain = await openTerminal(fake.client, PROVIDER_ID, { command: ['cat'], tty: false });
    await until(() => fake.seen.openSockets === 1);
    await plain.close();
    expect(frames).toEqual([[255, '\u0000']]);
  });

  it('close() cuts the socket when the server does not answer the close', async () => {
    fake.exec = (socket) => {
      // Never answers the close frame: the raw socket stays open until cut.
      (socket as unknown as { _socket: { removeAllListeners(event: string): void } })._socket.removeAllListeners('data');
    };
    const terminal = await openTerminal(fake.client, PROVIDER_ID);
    const started = Date.now();
    await terminal.close();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    expect(await terminal.exit).toEqual({ exitCode: null });
  });

  it('ends with the exit status a v4 server sends when the shell exits', async () => {
    fake.protocols = ['v4.channel.k8s.io'];
    fake.exec = (socket) => {
      socket.on('message', () => {
        socket.send(exitFrame(130));
        socket.close();
      });
    };
    const terminal = await openTerminal(fake.client, PROVIDER_ID);
    terminal.write('exit 130\r');
    expect(await terminal.exit).toEqual({ exitCode: 130 });
  });

  it('names a connection closed without an exit status as lost', async () => {
    fake.exec = (socket) => setTimeout(() => socket.close(1011, 'backend gone'), 20);
    const terminal = await openTerminal(fake.client, PROVIDER_ID, { command: ['sleep', '100'] });
    const error = await terminal.exit.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ExecConnectionLostError);
    expect((error as Error).message).toContain('the server closed the connection (1011 backend gone) without the command');
  });
});

describe('bounds', () => {
  it('bounds the connect: a server that never answers the upgrade is ApiTimeoutError, nothing left open', async () => {
    fake.silentExec = true;
    const started = Date.now();
    const error = await openTerminal(fake.client, PROVIDER_ID, { connectTimeoutMs: 300 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiTimeoutError);
    expect((error as Error).message).toContain('did not answer create pods/exec (default/web-7c9f5d-aaaaa) within 300 ms');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('pings: a session answered keeps going past many intervals', async () => {
    fake.exec = () => undefined;
    const terminal = await openTerminal(fake.client, PROVIDER_ID, { pingIntervalMs: 50 });
    let settled = false;
    void terminal.exit.then(
      () => (settled = true),
      () => (settled = true),
    );
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(settled).toBe(false);
    await terminal.close();
  });

  it('pings: a peer that answers none is lost after one silent interval', async () => {
    fake.answerPings = false;
    fake.exec = () => undefined;
    const terminal = await openTerminal(fake.client, PROVIDER_ID, { pingIntervalMs: 100 });
    const error = await terminal.exit.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ExecConnectionLostError);
    expect((error as Error).message).toContain('no answer to a ping within 100 ms');
    await until(() => fake.seen.openSockets === 0);
  });

  it('closes a session at maxSessionMs', async () => {
    fake.exec = () => undefined;
    const terminal = await openTerminal(fake.client, PROVIDER_ID, { maxSessionMs: 150 });
    const error = await terminal.exit.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ExecSessionTimeoutError);
    await until(() => fake.seen.openSockets === 0);
  });
});

describe('refusals', () => {
  it('a kubelet the API server cannot reach, reported on the status channel after the upgrade, is KubeletUnreachableError', async () => {
    // What kube-apiserver sends for a Pod on a KWOK node: the upgrade is accepted, then the status.
    fake.exec = (socket) => {
      socket.send(
        frame(
          3,
          JSON.stringify({
            metadata: {},
            status: 'Failure',
            reason: 'InternalError',
            message:
              'Internal error occurred: error sending request: Post "https://kwok-node-0:10250/exec/default/web/manager?command=true": dial tcp: lookup kwok-node-0: no such host',
          }),
        ),
      );
      socket.close();
    };
    const error = await execCommand(fake.client, PROVIDER_ID, ['true']).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(KubeletUnreachableError);
    expect((error as Error).message).toMatch(
      /^the API server cannot reach the kubelet of node worker-1 for pod default\/web-7c9f5d-aaaaa: Internal error occurred: error sending request/,
    );
  });

  it('403 on the upgrade is ForbiddenError naming pods/exec', async () => {
    fake.refuseExec = { statusCode: 403, message: 'pods "web" is forbidden: User "x" cannot create resource "pods/exec"' };
    const error = await openTerminal(fake.client, PROVIDER_ID).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ForbiddenError);
    expect((error as Error).message).toContain('may not create pods/exec in namespace default');
  });

  it('an API server that cannot dial the kubelet (a KWOK node has none) is KubeletUnreachableError naming the node', async () => {
    fake.refuseExec = { statusCode: 500, message: 'error dialing backend: dial tcp 10.0.0.11:10250: connect: connection refused' };
    const error = await openTerminal(fake.client, PROVIDER_ID).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(KubeletUnreachableError);
    expect((error as Error).message).toMatch(
      /^the API server cannot reach the kubelet of node worker-1 for pod default\/web-7c9f5d-aaaaa: /,
    );
  });
});
