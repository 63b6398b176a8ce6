// The live page: one EventSource on /api/events (Server-Sent Events), state kept in two
// Maps, the DOM updated once per animation frame for whatever changed since the last one,
// so a burst of events for many workloads costs one layout, not one per event.
// No framework and no build step: this file is served as it is. Each row's Terminal opens
// xterm.js (served by the page's server from its package) on a WebSocket to the server;
// its Logs pane reads the server's log stream (Server-Sent Events over fetch, so a refusal's
// reason can be read and the stream aborted).
'use strict';
/* global Terminal, FitAddon -- xterm.js and its fit addon, loaded before this file (/vendor/) */

const ACTION_HEADER = 'X-Kube-Provision-UI';
const ACTION_LABELS = { start: 'Start', stop: 'Stop', restart: 'Restart', remove: 'Delete' };
/** The row's buttons, in order: the two panes, then the lifecycle, Delete last. */
const ROW_BUTTONS = ['terminal', 'logs', 'start', 'stop', 'restart', 'remove'];
const BUTTON_LABELS = { ...ACTION_LABELS, terminal: 'Terminal', logs: 'Logs' };
/** A failure's detail shows this much of its first line; the rest is one click away. */
const DETAIL_FIRST_LINE_CHARS = 160;
/** Lines a log pane keeps (and holds while paused); older ones are dropped, and counted. */
const LOG_PANE_LINES = 5000;

const state = {
  namespace: '',
  // The event stream ('connecting', 'open', 'reconnecting', 'ended') and the cluster behind it
  // (null: the server cannot tell; else { state: 'connecting' | 'connected' | 'unreachable', message }).
  stream: 'connecting',
  cluster: null,
  actions: [],
  canTerminal: false,
  canLogs: false,
  statuses: new Map(), // providerId -> status event
  operations: new Map(), // operationId -> { id, kind, providerId, state, events, omitted, error }
  dirtyRows: new Set(),
  dirtyOperations: new Set(),
  rebuild: false,
  lastEventId: null,
  applied: 0,
  snapshots: 0,
  gaps: 0,
};

let source = null;
let renderScheduled = false;

function connect() {
  const url = state.lastEventId ? `/api/events?lastEventId=${encodeURIComponent(state.lastEventId)}` : '/api/events';
  source = new EventSource(url);
  source.addEventListener('open', () => setConnection('open'));
  source.addEventListener('error', () => {
    setConnection('reconnecting');
    // EventSource retries network errors by itself; after a refusal it gives up (CLOSED),
    // so a new one resumes after the last event seen.
    if (source.readyState === EventSource.CLOSED) {
      source.close();
      setTimeout(connect, 1000);
    }
  });
  on('snapshot', applySnapshot);
  on('connection', (event) => {
    state.cluster = { state: event.state, message: event.message };
    showConnection();
  });
  on('status', (event) => {
    if (event.status.state === 'missing') state.statuses.delete(event.providerId);
    else state.statuses.set(event.providerId, event);
    state.dirtyRows.add(event.providerId);
  });
  on('operation-started', ({ operation }) => {
    state.operations.set(operation.id, { ...operation, events: [...operation.events] });
    state.dirtyOperations.add(operation.id);
    markRowsOf(operation.providerId);
  });
  on('operation-event', ({ operationId, event }) => {
    const operation = state.operations.get(operationId);
    if (!operation) return;
    operation.events.push(event);
    state.dirtyOperations.add(operationId);
  });
  on('operation-ended', ({ operationId, state: outcome, error }) => {
    const operation = state.operations.get(operationId);
    if (!operation) return;
    operation.state = outcome;
    if (error) operation.error = error;
    state.dirtyOperations.add(operationId);
    markRowsOf(operation.providerId);
  });
  on('statuses-error', ({ error }) => showNotice(`Live status interrupted: ${error.name}: ${error.message} (retrying)`));
  on('gap', () => {
    state.gaps += 1;
    // Events were lost for good: start over from the server's current state.
    fetch('/api/state')
      .then((response) => response.json())
      .then((snapshot) => {
        applySnapshot(snapshot);
        scheduleRender();
      })
      .catch(() => {});
  });
  on('stream-end', () => {
    source.close();
    setConnection('ended');
  });
  on('stream-error', (error) => {
    source.close();
    setConnection('ended');
    showNotice(`The event stream failed: ${error.name}: ${error.message}`);
  });
}

function on(name, apply) {
  source.addEventListener(name, (message) => {
    state.lastEventId = message.lastEventId || state.lastEventId;
    state.applied += 1;
    apply(JSON.parse(message.data));
    scheduleRender();
  });
}

function applySnapshot(snapshot) {
  state.snapshots += 1;
  state.namespace = snapshot.namespace;
  state.actions = snapshot.actions;
  state.canTerminal = snapshot.canTerminal === true;
  state.canLogs = snapshot.canLogs === true;
  state.cluster = snapshot.connection ?? null;
  showConnection();
  state.statuses = new Map(snapshot.statuses.map((event) => [event.providerId, event]));
  state.operations = new Map(snapshot.operations.map((operation) => [operation.id, { ...operation, events: [...operation.events] }]));
  state.rebuild = true;
}

function markRowsOf(providerId) {
  if (state.statuses.has(providerId)) state.dirtyRows.add(providerId);
}

function scheduleRender() {
  if (renderScheduled) return;
  renderScheduled = true;
  // A hidden tab gets no animation frames: the timer renders it anyway, less often.
  const timer = setTimeout(render, 250);
  requestAnimationFrame(() => {
    clearTimeout(timer);
    render();
  });
}

function render() {
  if (!renderScheduled) return;
  renderScheduled = false;
  const tbody = document.querySelector('#workloads tbody');
  const operationsBox = document.getElementById('operations');
  if (state.rebuild) {
    state.rebuild = false;
    document.getElementById('namespace').textContent = state.namespace;
    for (const pane of tbody.querySelectorAll('tr.pane-row')) closePane(pane);
    tbody.replaceChildren();
    operationsBox.replaceChildren();
    state.dirtyRows = new Set(state.statuses.keys());
    state.dirtyOperations = new Set(state.operations.keys());
  }
  // Operations first: a change there re-renders its workload's row (its buttons).
  for (const id of state.dirtyOperations) renderOperation(operationsBox, id);
  state.dirtyOperations.clear();
  for (const providerId of state.dirtyRows) renderRow(tbody, providerId);
  state.dirtyRows.clear();
  document.body.dataset.terminals = String(document.querySelectorAll('tr.pane-row[data-kind="terminal"]').length);
  document.getElementById('workload-count').textContent = String(state.statuses.size);
  // "No workloads" only once the server's state has arrived and the cluster has answered
  // (or the server cannot tell): an unreachable one has nothing to say.
  document.getElementById('no-workloads').hidden =
    state.statuses.size > 0 || state.snapshots === 0 || (state.cluster !== null && state.cluster.state !== 'connected');
  document.getElementById('no-operations').hidden = state.operations.size > 0;
  document.body.dataset.lastEventId = state.lastEventId ?? '';
  document.body.dataset.appliedEvents = String(state.applied);
  document.body.dataset.snapshots = String(state.snapshots);
  document.body.dataset.gaps = String(state.gaps);
}

function renderRow(tbody, providerId) {
  const existing = tbody.querySelector(`tr[data-provider-id="${CSS.escape(providerId)}"]`);
  const event = state.statuses.get(providerId);
  if (!event) {
    if (existing) for (const pane of panesOf(existing)) closePane(pane);
    existing?.remove();
    return;
  }
  const row = existing ?? createRow(tbody, event);
  const { status } = event;
  row.dataset.state = status.state;
  const cells = row.children;
  setBadge(cells[1].firstChild, status.state);
  // Running needs no reason; anything else says why, a Pod's own words first.
  renderDetail(
    cells[2],
    status.state === 'running' ? '' : status.reason,
    status.pod && status.state !== 'running' ? status.pod.message : status.message,
  );
  cells[3].textContent = status.podIp ?? '–';
  cells[4].textContent = status.nodeName ?? '–';
  cells[5].textContent = String(status.restarts);
  cells[6].textContent = status.image ?? '–';
  renderService(row.querySelector('td.service'), status);
  renderVolume(row.querySelector('td.volume'), status.storage);
  const busy = [...state.operations.values()].some((operation) => operation.providerId === providerId && operation.state === 'running');
  const offered = offeredActions(status);
  for (const button of row.querySelector('td.actions').querySelectorAll('button')) {
    button.hidden = !offered.has(button.dataset.action);
    // The panes stay usable while an operation runs; the lifecycle buttons do not.
    button.disabled = busy && button.dataset.action in ACTION_LABELS;
  }
}

// What a row offers in each state: no Start on a running workload, no Stop on an offline
// one, a terminal only where a Pod runs (its Ready Pod's IP), a log wherever a container
// may have written one. Delete always.
function offeredActions(status) {
  const offered = new Set(['remove']);
  const { state: value } = status;
  if (value === 'offline' || value === 'stopping') offered.add('start');
  if (!['offline', 'stopping', 'missing'].includes(value)) offered.add('stop');
  if (['running', 'updating', 'failed'].includes(value)) offered.add('restart');
  if ((value === 'running' || value === 'updating') && status.podIp) offered.add('terminal');
  if (!['offline', 'missing'].includes(value)) offered.add('logs');
  return new Set(
    [...offered].filter((action) =>
      action === 'terminal' ? state.canTerminal : action === 'logs' ? state.canLogs : state.actions.includes(action),
    ),
  );
}

// A detail is its first line (cut to DETAIL_FIRST_LINE_CHARS); a longer one keeps the rest
// behind "more", so a 17-line failure does not make a wall of its row.
function renderDetail(cell, reason, message) {
  const [reasonNode, , firstNode, more] = cell.childNodes;
  reasonNode.textContent = reason;
  const text = (message ?? '').trim();
  const newline = text.indexOf('\n');
  let first = newline === -1 ? text : text.slice(0, newline);
  let rest = newline === -1 ? '' : text.slice(newline + 1);
  if (first.length > DETAIL_FIRST_LINE_CHARS) {
    rest = `${first.slice(DETAIL_FIRST_LINE_CHARS)}${rest ? `\n${rest}` : ''}`;
    first = `${first.slice(0, DETAIL_FIRST_LINE_CHARS)}…`;
  }
  firstNode.textContent = first;
  more.hidden = rest === '';
  more.lastChild.textContent = rest;
  const restLines = rest.split('\n').length;
  more.firstChild.textContent = `more (${restLines} line${restLines === 1 ? '' : 's'})`;
}

// The container's volume: its claim's phase and size (what the volume has; while a resize
// is pending, what it has -> what the claim asks), its class, and the claim's own words as
// the title. '–' for a container without one (its files live as long as the Pod).
function renderVolume(cell, storage) {
  const [phase, , size, storageClass] = cell.childNodes;
  cell.dataset.phase = storage?.phase ?? '';
  cell.dataset.resize = storage?.resize ?? '';
  cell.title = storage?.message ?? '';
  phase.textContent = storage ? storage.phase : '–';
  const has = storage?.capacity ?? null;
  const asks = storage?.requested ?? null;
  if (!storage) size.textContent = '';
  else if (storage.resize !== 'none' && has && asks) size.textContent = `${has} → ${asks} (resize ${storage.resize})`;
  else size.textContent = has ?? asks ?? '';
  storageClass.textContent = storage?.storageClass ?? '';
}

function createRow(tbody, event) {
  const row = document.createElement('tr');
  row.dataset.providerId = event.providerId;
  row.dataset.name = event.name;
  const name = cell(row);
  name.append(
    element('div', 'workload-name', event.name),
    element('div', 'workload-ids mono', `${event.providerId} · container ${event.containerId} · node ${event.nodeId}`),
  );
  cell(row).append(element('span', 'badge', ''));
  const detail = cell(row, 'detail');
  const more = element('details', 'more', '');
  more.append(element('summary', '', 'more'), element('pre', 'rest', ''));
  detail.append(element('span', 'reason', ''), document.createTextNode(' '), element('span', 'message', ''), more);
  cell(row, 'mono pod-ip');
  cell(row, 'node');
  cell(row, 'num');
  cell(row, 'mono image');
  cell(row, 'volume').append(
    element('span', 'volume-phase', ''),
    document.createTextNode(' '),
    element('span', 'volume-size mono', ''),
    element('div', 'volume-class', ''),
  );
  cell(row, 'service').append(element('div', 'address mono', ''), element('div', 'ports mono', ''), element('span', 'endpoint', ''));
  const actions = cell(row, 'actions');
  for (const action of ROW_BUTTONS) {
    const button = element('button', action === 'remove' ? 'danger' : '', BUTTON_LABELS[action]);
    button.type = 'button';
    button.dataset.action = action;
    button.hidden = true;
    button.addEventListener('click', () => {
      if (action === 'terminal') openTerminalPane(row, event.providerId);
      else if (action === 'logs') openLogsPane(row, event.providerId);
      else act(action, event.providerId);
    });
    actions.append(button);
  }
  // Keep rows sorted by name (a row's panes follow it).
  const after = [...tbody.children].find((other) => !other.classList.contains('pane-row') && other.dataset.name > event.name);
  tbody.insertBefore(row, after ?? null);
  return row;
}

// The Service column: the stable address Manager's agent connects to (not the Pod IP), the
// ports it carries and whether its EndpointSlices list the Pod as ready. `service` null: a
// container without ports has no Service and no address; undefined: the backend does not say.
function describeService(status) {
  const { service } = status;
  if (service === undefined) return { address: '–', ports: '', endpoint: '', routed: 'unknown', title: '' };
  if (service === null) return { address: 'no address', ports: 'no ports, no Service', endpoint: '', routed: 'none', title: '' };
  // A port's default name (`tcp-22`) says nothing the number does not.
  const named = (port) => (port.name && port.name !== `${port.protocol}-${port.port}` ? ` (${port.name})` : '');
  const ports = service.ports
    .map((port) => `${port.port}/${port.protocol}${port.nodePort ? ` → node ${port.nodePort}` : ''}${named(port)}`)
    .join(', ');
  const endpoint = {
    Routed: 'endpoint ready',
    EndpointNotReady: 'endpoint not ready',
    NoEndpoint: 'no ready endpoint',
    LoadBalancerPending: 'no load balancer address yet',
  }[service.reason];
  const address = service.address ?? (service.type === 'LoadBalancer' ? 'pending' : 'none yet');
  return {
    address: service.type === 'ClusterIP' ? address : `${address} (${service.type})`,
    ports,
    endpoint: endpoint ?? service.reason,
    routed: service.routed ? 'ready' : 'not-ready',
    title: service.message,
  };
}

function renderService(cell, status) {
  const view = describeService(status);
  cell.dataset.endpoint = view.routed;
  cell.title = view.title;
  const [address, ports, endpoint] = cell.children;
  address.textContent = view.address;
  ports.textContent = view.ports;
  endpoint.textContent = view.endpoint;
  endpoint.className = `endpoint endpoint-${view.routed}`;
}

function renderOperation(box, id) {
  const operation = state.operations.get(id);
  let card = box.querySelector(`[data-operation-id="${CSS.escape(id)}"]`);
  if (!operation) {
    card?.remove();
    return;
  }
  if (!card) {
    card = element('article', 'operation', '');
    card.dataset.operationId = id;
    card.dataset.providerId = operation.providerId;
    const header = element('header', '', '');
    header.append(element('span', 'kind', operation.kind), element('code', '', operation.providerId), element('span', 'badge', ''));
    card.append(header, element('ol', 'lines', ''), element('p', 'error', ''));
    box.prepend(card); // newest first
  }
  card.dataset.state = operation.state;
  setBadge(card.querySelector('header .badge'), operation.state);
  const list = card.querySelector('ol');
  const shown = Number(list.dataset.shown ?? 0);
  if (operation.omitted && shown === 0) list.append(element('li', 'omitted', `(${operation.omitted} earlier lines not kept)`));
  for (const event of operation.events.slice(shown)) {
    // Like the CLI: a change that reads the same in words is one line.
    const text = describe(event);
    if (text === list.dataset.lastText) continue;
    list.dataset.lastText = text;
    const line = element('li', '', '');
    line.dataset.type = event.type;
    line.append(element('time', '', event.at.slice(11, 23)), document.createTextNode(text));
    list.append(line);
  }
  list.dataset.shown = String(operation.events.length);
  list.scrollTop = list.scrollHeight;
  card.querySelector('.error').textContent = operation.error ? `${operation.error.name}: ${operation.error.message}` : '';
  markRowsOf(operation.providerId);
}

function describe(event) {
  switch (event.type) {
    case 'created':
      return 'created Deployment';
    case 'adopted':
      return 'adopted existing Deployment (same container-id)';
    case 'ready':
      return `ready in ${(event.durationMs / 1000).toFixed(1)}s`;
    default:
      return event.message ?? event.type;
  }
}

async function act(action, providerId) {
  if (action === 'remove' && !confirm(`Delete ${providerId}? Its Deployment and Pods are removed.`)) return;
  const [namespace, name] = providerId.split('/');
  const response = await fetch(`/api/workloads/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/${action}`, {
    method: 'POST',
    headers: { [ACTION_HEADER]: '1' },
  });
  if (!response.ok) {
    const error = await response.json().catch(() => ({ name: 'Error', message: response.statusText }));
    showNotice(`${ACTION_LABELS[action]} ${providerId} failed: ${error.name}: ${error.message}`);
  }
}

function setBadge(badge, value) {
  badge.textContent = value;
  badge.className = `badge state-${value}`;
}

function setConnection(value) {
  state.stream = value;
  showConnection();
}

/** "live" only while the stream is open and the cluster answers; else what is wrong, as the CLI would say it. */
function showConnection() {
  const label = document.getElementById('connection');
  let value = state.stream;
  let text = { connecting: 'connecting…', reconnecting: 'reconnecting…', ended: 'disconnected' }[value] ?? value;
  if (value === 'open') {
    // Until the first snapshot nothing is known of the cluster: the stream can open before it arrives.
    const cluster = state.snapshots === 0 ? 'connecting' : (state.cluster?.state ?? 'connected');
    value = cluster === 'connected' ? 'live' : cluster === 'unreachable' ? 'unreachable' : 'connecting';
    text =
      value === 'live'
        ? 'live'
        : value === 'unreachable'
          ? `cannot reach the cluster: ${state.cluster.message ?? 'no answer'} (retrying)`
          : 'connecting to the cluster…';
  }
  document.body.dataset.connection = value;
  label.textContent = text;
  scheduleRender();
}

function showNotice(text) {
  const alert = document.getElementById('alert');
  alert.textContent = text;
  alert.hidden = false;
}

function cell(row, className = '') {
  const td = element('td', className, '');
  row.append(td);
  return td;
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
}

// ---- The panes: a terminal and a log, each in a row of its own below its workload's ----

function panesOf(row) {
  const panes = [];
  for (let next = row.nextElementSibling; next?.classList.contains('pane-row'); next = next.nextElementSibling) panes.push(next);
  return panes;
}

/** The row's pane of this kind, made when it has none (the terminal first, then the log). */
function paneFor(row, kind, title) {
  const existing = panesOf(row).find((pane) => pane.dataset.kind === kind);
  if (existing) return { pane: existing, fresh: false };
  const pane = element('tr', 'pane-row', '');
  pane.dataset.kind = kind;
  pane.dataset.paneFor = row.dataset.providerId;
  const td = element('td', 'pane', '');
  td.colSpan = row.children.length;
  const header = element('div', 'pane-header', '');
  const close = element('button', '', 'Close');
  close.type = 'button';
  close.dataset.paneAction = 'close';
  close.addEventListener('click', () => closePane(pane));
  header.append(element('strong', '', title), element('span', 'pane-status', ''), element('span', 'pane-tools', ''), close);
  td.append(header, element('div', `pane-body ${kind}-body`, ''));
  pane.append(td);
  const panes = panesOf(row);
  const before = kind === 'terminal' ? row.nextElementSibling : (panes.at(-1) ?? row).nextElementSibling;
  row.parentNode.insertBefore(pane, before);
  scheduleRender();
  return { pane, fresh: true };
}

function setPaneStatus(pane, value, text) {
  pane.dataset.state = value;
  pane.querySelector('.pane-status').textContent = text;
}

function closePane(pane) {
  pane.close?.();
  pane.remove();
  scheduleRender();
}

function workloadPath(providerId, what) {
  const [namespace, name] = providerId.split('/');
  return `/api/workloads/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/${what}`;
}

function openTerminalPane(row, providerId) {
  const { pane, fresh } = paneFor(row, 'terminal', `Terminal ${providerId}`);
  if (!fresh) return pane.focusTerminal?.();
  const body = pane.querySelector('.pane-body');
  const terminal = new Terminal({ cursorBlink: true, fontSize: 13, scrollback: 5000, convertEol: false });
  const fit = new FitAddon.FitAddon();
  terminal.loadAddon(fit);
  terminal.open(body);
  fit.fit();
  setPaneStatus(pane, 'connecting', 'connecting…');
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const socket = new WebSocket(
    `${scheme}://${location.host}${workloadPath(providerId, 'terminal')}?columns=${terminal.cols}&rows=${terminal.rows}`,
  );
  socket.binaryType = 'arraybuffer';
  let ended = false;
  const send = (message) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  };
  socket.addEventListener('message', (message) => {
    if (typeof message.data !== 'string') {
      terminal.write(new Uint8Array(message.data));
      return;
    }
    const event = JSON.parse(message.data);
    if (event.type === 'open') setPaneStatus(pane, 'open', `connected to ${event.pod}`);
    else if (event.type === 'ready') setPaneStatus(pane, 'open', `${event.command.join(' ')} in ${event.pod}`);
    else if (event.type === 'exit') {
      ended = true;
      setPaneStatus(pane, 'exited', `exited${event.exitCode === null ? '' : ` with ${event.exitCode}`}`);
    } else if (event.type === 'error') {
      ended = true;
      setPaneStatus(pane, 'error', `${event.name}: ${event.message}`);
    }
  });
  socket.addEventListener('close', (close) => {
    if (!ended) setPaneStatus(pane, 'error', close.code === 1006 ? 'the server refused or lost the terminal' : `closed (${close.code})`);
    pane.dataset.closeCode = String(close.code);
    terminal.options.disableStdin = true;
  });
  terminal.onData((data) => send({ type: 'input', data }));
  terminal.onResize(({ cols, rows }) => send({ type: 'resize', columns: cols, rows }));
  const resizer = new ResizeObserver(() => fit.fit());
  resizer.observe(body);
  pane.focusTerminal = () => terminal.focus();
  pane.close = () => {
    resizer.disconnect();
    socket.close();
    terminal.dispose();
  };
  terminal.focus();
}

function openLogsPane(row, providerId) {
  const { pane, fresh } = paneFor(row, 'logs', `Log ${providerId}`);
  if (!fresh) return;
  const tools = pane.querySelector('.pane-tools');
  const follow = checkbox('Follow', true);
  const previous = checkbox('Previous run', false);
  const pause = element('button', '', 'Pause');
  pause.type = 'button';
  pause.dataset.paneAction = 'pause';
  tools.append(follow.label, previous.label, pause);
  const list = element('ol', 'log-lines mono', '');
  pane.querySelector('.pane-body').append(list);
  let controller;
  let paused = false;
  let held = [];
  let dropped = 0;
  const show = (lines) => {
    for (const line of lines) {
      const item = element('li', '', '');
      if (line.time) item.append(element('time', '', line.time.slice(11, 23)));
      item.append(document.createTextNode(line.text + (line.truncated ? ' …' : '')));
      list.append(item);
    }
    while (list.children.length > LOG_PANE_LINES) list.firstChild.remove();
    list.scrollTop = list.scrollHeight;
  };
  const pausedText = () => `paused: ${held.length} new line${held.length === 1 ? '' : 's'} held${dropped ? `, ${dropped} dropped` : ''}`;
  const start = () => {
    controller?.abort();
    controller = new AbortController();
    list.replaceChildren();
    held = [];
    dropped = 0;
    const query = `follow=${follow.input.checked ? 1 : 0}&previous=${previous.input.checked ? 1 : 0}`;
    setPaneStatus(pane, 'connecting', 'connecting…');
    readLogStream(`${workloadPath(providerId, 'logs')}?${query}`, controller.signal, {
      open: () => setPaneStatus(pane, paused ? 'paused' : 'open', paused ? pausedText() : follow.input.checked ? 'following' : 'reading'),
      line: (line) => {
        if (!paused) return show([line]);
        held.push(line);
        if (held.length > LOG_PANE_LINES) {
          held.shift();
          dropped += 1;
        }
        setPaneStatus(pane, 'paused', pausedText());
      },
      end: () => setPaneStatus(pane, 'ended', 'end of the log'),
      error: (error) => setPaneStatus(pane, 'error', `${error.name}: ${error.message}`),
    });
  };
  follow.input.addEventListener('change', () => {
    if (follow.input.checked) previous.input.checked = false;
    start();
  });
  previous.input.addEventListener('change', () => {
    if (previous.input.checked) follow.input.checked = false;
    start();
  });
  pause.addEventListener('click', () => {
    paused = !paused;
    pause.textContent = paused ? 'Resume' : 'Pause';
    if (paused) setPaneStatus(pane, 'paused', pausedText());
    else {
      show(held);
      held = [];
      dropped = 0;
      setPaneStatus(pane, 'open', follow.input.checked ? 'following' : 'reading');
    }
  });
  pane.close = () => controller?.abort();
  start();
}

function checkbox(text, checked) {
  const label = element('label', 'pane-option', '');
  const input = document.createElement('input');
  input.type = 'checkbox';
  input.checked = checked;
  label.append(input, document.createTextNode(` ${text}`));
  return { label, input };
}

/** Reads a Server-Sent Events response with fetch: `line`, `end` and `error` events; a refusal's JSON is an error. */
async function readLogStream(url, signal, on) {
  try {
    const response = await fetch(url, { signal, headers: { Accept: 'text/event-stream' } });
    if (!response.ok) {
      const error = await response.json().catch(() => ({ name: 'Error', message: response.statusText }));
      on.error(error);
      return;
    }
    on.open();
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let boundary;
      while ((boundary = buffer.indexOf('\n\n')) !== -1) {
        const frame = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        let name = 'message';
        let data = '';
        for (const field of frame.split('\n')) {
          if (field.startsWith('event: ')) name = field.slice(7);
          else if (field.startsWith('data: ')) data += field.slice(6);
        }
        if (!data) continue;
        if (name === 'line') on.line(JSON.parse(data));
        else if (name === 'end') on.end();
        else if (name === 'error') on.error(JSON.parse(data));
      }
    }
  } catch (error) {
    if (!signal.aborted) on.error({ name: error.name, message: error.message });
  }
}

connect();
