'use strict';
// Manager's routers/api/v1/nodes.js (create, update and show a site's nodes) with the
// kubernetes node type: the lines marked "kube-provisioner" are the ones docs/manager.md
// tells Manager to add (its test checks they are here, as written). The rest stands for
// Manager's own code, in our words, reduced to what the tests drive.
const express = require('express');
// kube-provisioner: the kit, beside the router's other requires.
const kubernetes = require('kube-provisioner/manager-kit');
const { Node, Site } = require(process.env.MANAGER_MODELS);
const { ApiError, asyncHandler, created, ok } = require('./api.cjs');

const router = express.Router({ mergeParams: true });

function serialize(n) {
  return {
    id: n.id,
    name: n.name,
    nodeType: n.nodeType,
    siteId: n.siteId,
    apiUrl: n.apiUrl,
    tlsVerify: n.tlsVerify,
    nvidiaAvailable: n.nvidiaAvailable,
    hasSecret: !!n.secret,
    // kube-provisioner: the kubernetes columns (paths and names: no secret among them).
    ...kubernetes.nodeFields(n),
  };
}

// Manager's utils/docker-api.js check, in our words: a Docker host URL Manager's client can use.
function isValidDockerHost(host) {
  if (typeof host !== 'string' || host.trim() === '') return false;
  try {
    const url = new URL(host.trim());
    if (url.protocol === 'unix:') return !!url.pathname && url.pathname !== '/';
    if (url.protocol === 'tcp:') return !!url.hostname && !!url.port && (url.pathname === '' || url.pathname === '/');
    return (url.protocol === 'http:' || url.protocol === 'https:') && (url.pathname === '' || url.pathname === '/');
  } catch {
    return false;
  }
}

function normalizeNodeType(nodeType) {
  return nodeType || 'proxmox';
}

// kube-provisioner: the kubernetes node type is one of the four.
const NODE_TYPES = ['proxmox', 'docker', 'dummy', kubernetes.NODE_TYPE];

// kube-provisioner: takes the whole body, and is async: a kubernetes node is checked by its columns and against its cluster.
async function validateNodeInput(input) {
  const { nodeType, apiUrl } = input;
  const type = normalizeNodeType(nodeType);

  if (!NODE_TYPES.includes(type)) {
    throw new ApiError(400, 'invalid_node_type', 'Node type must be proxmox, docker, dummy, or kubernetes');
  }

  if (type === 'docker' && (!apiUrl || !isValidDockerHost(apiUrl))) {
    throw new ApiError(
      400,
      'invalid_docker_host',
      'Docker host must use unix://, tcp://, http://, or https:// without extra path components',
    );
  }

  // kube-provisioner: a kubernetes node whose columns break a rule, or whose cluster refuses them, is refused, naming each column.
  const kubernetesProblem = type === kubernetes.NODE_TYPE ? await kubernetes.nodeSaveProblem(input) : undefined;
  if (kubernetesProblem) throw new ApiError(400, 'invalid_kubernetes_node', kubernetesProblem);

  return type;
}

const tlsVerifyOf = (tlsVerify) =>
  tlsVerify === '' || tlsVerify === null || tlsVerify === undefined ? null : tlsVerify === true || tlsVerify === 'true';

router.get(
  '/:id',
  asyncHandler(async (req, res) => {
    const node = await Node.findOne({ where: { id: Number(req.params.id), siteId: Number(req.params.siteId) } });
    if (!node) throw new ApiError(404, 'not_found', 'Node not found');
    return ok(res, serialize(node));
  }),
);

router.post(
  '/',
  asyncHandler(async (req, res) => {
    const site = await Site.findByPk(Number(req.params.siteId));
    if (!site) throw new ApiError(404, 'site_not_found', 'Site not found');
    const { name, apiUrl, secret, tlsVerify, nvidiaAvailable } = req.body || {};
    // kube-provisioner: the whole body, so the kubernetes columns are checked too.
    const type = await validateNodeInput(req.body || {});
    const node = await Node.create({
      name,
      nodeType: type,
      apiUrl: apiUrl || null,
      secret: secret || null,
      tlsVerify: tlsVerifyOf(tlsVerify),
      nvidiaAvailable: nvidiaAvailable === true || nvidiaAvailable === 'true',
      siteId: site.id,
      // kube-provisioner: the kubernetes columns from the form.
      ...kubernetes.nodeFields(req.body),
    });
    return created(res, serialize(node));
  }),
);

router.put(
  '/:id',
  asyncHandler(async (req, res) => {
    const node = await Node.findOne({ where: { id: Number(req.params.id), siteId: Number(req.params.siteId) } });
    if (!node) throw new ApiError(404, 'not_found', 'Node not found');
    const { name, nodeType, apiUrl, secret, tlsVerify, nvidiaAvailable } = req.body || {};
    // kube-provisioner: the body over the saved secret (the form sends it only when it changes).
    const type = await validateNodeInput({ ...req.body, nodeType: nodeType || node.nodeType, secret: secret || node.secret });
    const update = {
      name,
      nodeType: type,
      apiUrl: apiUrl || null,
      tlsVerify: tlsVerifyOf(tlsVerify),
      nvidiaAvailable: nvidiaAvailable === true || nvidiaAvailable === 'true',
      // kube-provisioner: the kubernetes columns from the form.
      ...kubernetes.nodeFields(req.body),
    };
    if (secret && secret.trim() !== '') update.secret = secret;
    await node.update(update);
    return ok(res, serialize(node));
  }),
);

module.exports = router;
