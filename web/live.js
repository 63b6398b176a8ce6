// The live page: one EventSource on /api/events (Server-Sent Events), state kept in two
// Maps, the DOM updated once per animation frame for whatever changed since the last one,
// so a burst of events for many workloads costs one layout, not one per event.
// No framework and no build step: this file is served as it is.
'use strict';

const ACTION_HEADER = 'X-Kube-Provision-UI';
const ACTION_LABELS = { start: 'Start', stop: 'Stop', restart: 'Restart', remove: 'Delete' };

const state = {
  namespace: '',
  // The event stream ('connecting', 'open', 'reconnecting', 'ended') and the cluster behind it
  // (null: the server cannot tell; else { state: 'connecting' | 'connected' | 'unreachable', message }).
  stream: 'connecting',
  cluster: null,
  actions: [],
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
    existing?.remove();
    return;
  }
  const row = existing ?? createRow(tbody, event);
  const { status } = event;
  row.dataset.state = status.state;
  const cells = row.children;
  setBadge(cells[1].firstChild, status.state);
  const detail = cells[2];
  // Running needs no reason; anything else says why, a Pod's own words first.
  detail.firstChild.textContent = status.state === 'running' ? '' : status.reason;
  detail.lastChild.textContent = status.pod && status.state !== 'running' ? status.pod.message : status.message;
  cells[3].textContent = status.podIp ?? '–';
  cells[4].textContent = status.nodeName ?? '–';
  cells[5].textContent = String(status.restarts);
  cells[6].textContent = status.image ?? '–';
  renderService(row.querySelector('td.service'), status);
  renderVolume(row.querySelector('td.volume'), status.storage);
  const busy = [...state.operations.values()].some((operation) => operation.providerId === providerId && operation.state === 'running');
  for (const button of row.querySelector('td.actions').querySelectorAll('button')) button.disabled = busy;
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
  detail.append(element('span', 'reason', ''), document.createTextNode(' '), element('span', 'message', ''));
  cell(row, 'mono nowrap');
  cell(row, 'nowrap');
  cell(row, 'num');
  cell(row, 'mono');
  cell(row, 'volume nowrap').append(
    element('span', 'volume-phase', ''),
    document.createTextNode(' '),
    element('span', 'volume-size mono', ''),
    element('div', 'volume-class', ''),
  );
  cell(row, 'service').append(element('div', 'address mono', ''), element('div', 'ports mono', ''), element('span', 'endpoint', ''));
  const actions = cell(row, 'actions');
  for (const action of state.actions) {
    const button = element('button', action === 'remove' ? 'danger' : '', ACTION_LABELS[action]);
    button.type = 'button';
    button.dataset.action = action;
    button.addEventListener('click', () => act(action, event.providerId));
    actions.append(button);
  }
  // Keep rows sorted by name.
  const after = [...tbody.children].find((other) => other.dataset.name > event.name);
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

connect();
