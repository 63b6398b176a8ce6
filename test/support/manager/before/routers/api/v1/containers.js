// Manager's routers/api/v1/containers.js before the guide, in our words around the lines the
// guide names.
const express = require('express');
const { Container, Node, Job, sequelize } = require('../../../models');
const { apiAuth, asyncHandler, ok, created, ApiError } = require('../../../middlewares/api');

const router = express.Router({ mergeParams: true });

router.use(apiAuth);

async function loadContainerForSession(siteId, containerId, session, { requireManage = false, include } = {}) {
  const container = await Container.findOne({ where: { id: parseInt(containerId, 10), siteId }, include });
  if (!container || !(session.isAdmin || container.username === session.user)) {
    throw new ApiError(404, 'not_found', 'Container not found');
  }
  if (requireManage && !session.isAdmin) throw new ApiError(403, 'forbidden', 'Only the owner may manage this container');
  return { container };
}

router.post(
  '/',
  asyncHandler(async (req, res) => created(res, await Container.create(req.body))),
);

router.put(
  '/:id',
  asyncHandler(async (req, res) => {
    const { container } = await loadContainerForSession(req.params.siteId, req.params.id, req.session, { requireManage: true });
    const { services } = req.body || {};
    let restartJob = null;
    await sequelize.transaction(async (t) => {
      if (req.body?.restart) restartJob = await Job.create({ command: `node bin/reconfigure-container.js --container-id=${container.id}` }, { transaction: t });
    });
    return ok(res, {
      containerId: container.id,
      services: Boolean(services),
      message: restartJob ? 'Container is restarting' : 'Container updated',
    });
  }),
);

// DELETE /containers/:id
router.delete(
  '/:id',
  asyncHandler(async (req, res) => {
    const { container } = await loadContainerForSession(req.params.siteId, req.params.id, req.session, { requireManage: true });
    const node = await Node.findByPk(container.nodeId);
    if (container.containerId) {
      try {
        const api = await node.api();
        await api.deleteContainer(node.name, container.containerId, true, true);
      } catch (err) {
        if (err instanceof ApiError) throw err;
        console.log(`Node-side deletion skipped or failed: ${err.message}`);
      }
    }
    await container.destroy();
    return ok(res, { deleted: true });
  }),
);

module.exports = router;
