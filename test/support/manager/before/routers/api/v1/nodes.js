// Manager's routers/api/v1/nodes.js before the guide, in our words around the lines the guide names.
const express = require('express');
const { Node, Site } = require('../../../models');
const { isValidDockerHost } = require('../../../utils/docker-api');
const { apiAuth, apiAdmin, asyncHandler, ok, created, ApiError } =
  require('../../../middlewares/api');

const router = express.Router({ mergeParams: true });

router.use(apiAuth);

function serialize(n) {
  return {
    id: n.id,
    name: n.name,
    hasSecret: !!n.secret,
  };
}

function normalizeNodeType(nodeType) {
  return nodeType || 'proxmox';
}

function validateNodeInput({ nodeType, apiUrl }) {
  const type = normalizeNodeType(nodeType);
  if (type === 'docker' && !isValidDockerHost(apiUrl)) throw new ApiError(400, 'invalid_docker_host', 'Bad Docker host');
  return type;
}

router.post(
  '/',
  apiAdmin,
  asyncHandler(async (req, res) => {
    const site = await Site.findByPk(parseInt(req.params.siteId, 10));
    const { name, nodeType, apiUrl, secret } = req.body || {};
    const type = validateNodeInput({ nodeType, apiUrl });
    const node = await Node.create({
      name,
      nodeType: type,
      apiUrl: apiUrl || null,
      secret: secret || null,
      siteId: site.id,
    });
    return created(res, serialize(node));
  }),
);

router.put(
  '/:id',
  apiAdmin,
  asyncHandler(async (req, res) => {
    const node = await Node.findOne({ where: { id: parseInt(req.params.id, 10) } });
    const { name, nodeType, apiUrl, secret } = req.body || {};
    const type = validateNodeInput({
      nodeType: nodeType || node.nodeType,
      apiUrl,
    });
    const update = {
      name,
      nodeType: type,
      apiUrl: apiUrl || null,
    };
    if (secret && secret.trim() !== '') update.secret = secret;
    await node.update(update);
    return ok(res, serialize(node));
  }),
);

module.exports = router;
