// kube-provisioner (manager-kit/client): a container's log in Manager's page, from the
// Server-Sent Events that kube-provisioner's containerLogs() serves on
// /api/v1/sites/:siteId/containers/:id/logs: `line` events (JSON: text, time, pod), `end`
// once a log without follow is read, `error` (JSON: message) before the stream ends.
// Follow, pause (lines are held, not lost) and the previous run (a crashed container's).
import { useEffect, useRef, useState } from 'react';
import { Alert, AlertDescription, Button, Switch } from '@mieweb/ui';

interface LogLine {
  text: string;
  time?: string;
  pod: string;
  truncated: boolean;
}

/** Lines kept on the page; older ones scroll out. */
const MAX_LINES = 5000;
const TAIL = 500;

export function ContainerLogs({ siteId, containerId }: { siteId: string; containerId: number }) {
  const [lines, setLines] = useState<LogLine[]>([]);
  const [follow, setFollow] = useState(true);
  const [previous, setPrevious] = useState(false);
  const [paused, setPaused] = useState(false);
  const [ended, setEnded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const held = useRef<LogLine[]>([]);
  const pausedRef = useRef(paused);
  const bottom = useRef<HTMLDivElement | null>(null);

  useEffect(() => {
    pausedRef.current = paused;
    if (!paused && held.current.length > 0) {
      const released = held.current;
      held.current = [];
      setLines((prev) => [...prev, ...released].slice(-MAX_LINES));
    }
  }, [paused]);

  useEffect(() => {
    setLines([]);
    setEnded(false);
    setError(null);
    held.current = [];
    const query = previous ? `previous=true&tail=${TAIL}` : `follow=${follow}&tail=${TAIL}`;
    const source = new EventSource(`/api/v1/sites/${encodeURIComponent(siteId)}/containers/${containerId}/logs?${query}`);
    source.addEventListener('line', (event: MessageEvent<string>) => {
      const line = JSON.parse(event.data) as LogLine;
      if (pausedRef.current) held.current.push(line);
      else setLines((prev) => [...prev.slice(-(MAX_LINES - 1)), line]);
    });
    source.addEventListener('end', () => {
      setEnded(true);
      source.close();
    });
    source.addEventListener('error', (event: Event) => {
      // The server's own error event carries its words; a dropped connection has none.
      const words =
        event instanceof MessageEvent && typeof event.data === 'string' ? (JSON.parse(event.data) as { message: string }).message : null;
      setError(words ?? 'The log stream stopped: the container may not be running, or you may not read its log.');
      source.close();
    });
    return () => source.close();
  }, [siteId, containerId, follow, previous, attempt]);

  useEffect(() => {
    if (!paused) bottom.current?.scrollIntoView({ block: 'end' });
  }, [lines, paused]);

  return (
    <div className="flex flex-col gap-3">
      <div className="flex flex-wrap items-center gap-4">
        <Switch label="Follow" checked={follow && !previous} disabled={previous} onCheckedChange={setFollow} />
        <Switch label="Previous run" checked={previous} onCheckedChange={setPrevious} />
        <Button variant="ghost" size="sm" onClick={() => setPaused((p) => !p)} disabled={previous || !follow}>
          {paused ? `Resume (${held.current.length} held)` : 'Pause'}
        </Button>
        {error && (
          <Button variant="ghost" size="sm" onClick={() => setAttempt((n) => n + 1)}>
            Reconnect
          </Button>
        )}
      </div>
      <pre className="h-[28rem] overflow-auto whitespace-pre-wrap break-all rounded-md bg-black p-2 font-mono text-xs text-gray-100">
        {lines.map((line, index) => (
          <div key={index}>{line.text}</div>
        ))}
        <div ref={bottom} />
      </pre>
      {ended && <p className="text-sm text-muted-foreground">End of the log.</p>}
      {error && (
        <Alert variant="danger">
          <AlertDescription>{error}</AlertDescription>
        </Alert>
      )}
    </div>
  );
}
