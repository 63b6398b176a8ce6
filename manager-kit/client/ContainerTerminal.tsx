// kube-provisioner (manager-kit/client): a container's terminal in Manager's page, over the
// WebSocket that kube-provisioner's containerTerminal() serves on
// /api/v1/sites/:siteId/containers/:id/terminal. Binary messages carry the terminal's bytes
// both ways; text messages are JSON: {"type":"resize"} to the server, {"type":"exit"} or
// {"type":"error"} from it. Closing the component closes the socket, which ends the shell.
import { useEffect, useRef, useState } from 'react';
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import '@xterm/xterm/css/xterm.css';

type ServerMessage = { type: 'exit'; exitCode: number | null } | { type: 'error'; message: string };

export function ContainerTerminal({ siteId, containerId }: { siteId: string; containerId: number }) {
  const hostRef = useRef<HTMLDivElement | null>(null);
  const [state, setState] = useState<'connecting' | 'open' | 'closed'>('connecting');
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    const host = hostRef.current;
    if (!host) return;
    const terminal = new Terminal({ cursorBlink: true, fontSize: 13, scrollback: 5000 });
    const fit = new FitAddon();
    terminal.loadAddon(fit);
    terminal.open(host);
    fit.fit();

    const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
    const url =
      `${scheme}://${window.location.host}/api/v1/sites/${encodeURIComponent(siteId)}/containers/${containerId}/terminal` +
      `?columns=${terminal.cols}&rows=${terminal.rows}`;
    const socket = new WebSocket(url);
    socket.binaryType = 'arraybuffer';
    const encoder = new TextEncoder();
    let told = false;

    socket.onopen = () => {
      setState('open');
      terminal.focus();
    };
    socket.onmessage = (event: MessageEvent<ArrayBuffer | string>) => {
      if (typeof event.data !== 'string') {
        terminal.write(new Uint8Array(event.data));
        return;
      }
      const message = JSON.parse(event.data) as ServerMessage;
      told = true;
      setNotice(
        message.type === 'exit'
          ? `The shell ended${message.exitCode === null ? '' : ` with exit status ${message.exitCode}`}.`
          : message.message,
      );
    };
    socket.onclose = () => {
      setState('closed');
      // A refused upgrade reaches the page without its status: say what it can be.
      if (!told) setNotice('The terminal closed: the container may not be running, or you may not open it.');
    };
    const input = terminal.onData((data) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(encoder.encode(data));
    });
    const resize = terminal.onResize(({ cols, rows }) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: 'resize', columns: cols, rows }));
    });
    const observer = new ResizeObserver(() => fit.fit());
    observer.observe(host);

    return () => {
      observer.disconnect();
      input.dispose();
      resize.dispose();
      socket.close();
      terminal.dispose();
    };
  }, [siteId, containerId]);

  return (
    <div className="flex flex-col gap-2">
      <div ref={hostRef} className="h-[28rem] w-full overflow-hidden rounded-md bg-black p-1" />
      <p className="text-sm text-muted-foreground" role="status">
        {state === 'connecting' ? 'Connecting…' : state === 'open' ? (notice ?? 'Connected') : (notice ?? 'Closed')}
      </p>
    </div>
  );
}
