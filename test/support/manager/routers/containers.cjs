'use strict';
// Manager's routers/api/v1/containers.js, reduced to what the tests drive: the routes Manager
// adds so a user can stop and start a container (each queues the job that does it,
// bin/start-stop-container.js, as Manager's edit route queues bin/reconfigure-container.js),
// and Manager's own DELETE route, which the kit leaves as it is: it reaches a kubernetes
// node through node.api(). The lines marked "kube-provisioner" are the ones docs/manager.md
// shows (its test checks they are here, as written); the rest stands for Manager's code,
// in our words.
const express = require('express');
const { Container, Job, Node, Service, TransportService, sequelize } = require(process.env.MANAGER_MODELS);
const { ApiError, asyncHandler, ok } = require('./api.cjs');
// kube-provisioner: the kit, beside the router's other requires.
const { managerProviders } = require('kube-provisioner/manager-kit');

const router = express.Router({ mergeParams: true });

// kube-provisioner: the job scripts' lifecycle over Manager's models (sequelize.models has them all), for setPorts below.
const { lifecycle } = managerProviders(sequelize.models, { instance: process.env.MANAGER_INSTANCE_ID });

async function loadContainerForSession(siteId, containerId, session, { requireManage = false } = {}) {
  const container = await Container.findOne({ where: { id: Number(containerId), siteId: Number(siteId) } });
  if (!container || !(session.isAdmin || container.username === session.user)) throw new ApiError(404, 'not_found', 'Container not found');
  if (requireManage && !(session.isAdmin || container.username === session.user))
    throw new ApiError(403, 'forbidden', 'Only the owner may manage this container');
  return { container };
}

// kube-provisioner: POST /containers/:id/start and /stop queue the job that does it, for every node type.
for (const action of ['start', 'stop']) {
  router.post(
    `/:id/${action}`,
    asyncHandler(async (req, res) => {
      const { container } = await loadContainerForSession(req.params.siteId, req.params.id, req.session, { requireManage: true });
      if (!container.containerId) throw new ApiError(409, 'not_provisioned', 'The container is not created on its node yet');
      const job = await Job.create({
        command: `node bin/start-stop-container.js --container-id=${container.id} --action=${action}`,
        createdBy: req.session.user,
        status: 'pending',
      });
      return ok(res, { containerId: container.id, jobId: job.id });
    }),
  );
}

// Manager's PUT /containers/:id, reduced to services and a restart: the rows change in one
// transaction, and a reconfigure job is queued when a restart is asked for; a service-only
// edit queues nothing, so the kit's lines apply the ports on the node.
router.put(
  '/:id',
  asyncHandler(async (req, res) => {
    const { container } = await loadContainerForSession(req.params.siteId, req.params.id, req.session, { requireManage: true });
    const { services } = req.body || {};
    const needsRestart = req.body?.restart === true || req.body?.restart === 'true';
    let restartJob = null;
    await sequelize.transaction(async (t) => {
      if (needsRestart && container.containerId) {
        restartJob = await Job.create(
          { command: `node bin/reconfigure-container.js --container-id=${container.id}`, createdBy: req.session.user, status: 'pending' },
          { transaction: t },
        );
      }
      for (const { id, deleted, type, internalPort } of Object.values(services || {})) {
        if ((deleted === true || deleted === 'true') && id)
          await Service.destroy({ where: { id, containerId: container.id }, transaction: t });
        if (deleted || id || !type || !internalPort) continue;
        const serviceType = type === 'http' || type === 'https' ? 'http' : 'transport';
        const created = await Service.create(
          { containerId: container.id, type: serviceType, internalPort: Number(internalPort) },
          { transaction: t },
        );
        if (serviceType === 'transport') await TransportService.create({ serviceId: created.id, protocol: type }, { transaction: t });
      }
    });

    // kube-provisioner: a service-only edit queued no job, so the node's Service takes the rows' ports now; a failure is answered, not a 500.
    let portsError = null;
    if (services && !restartJob && container.containerId) {
      try {
        await lifecycle.setPorts(container.id);
      } catch (err) {
        portsError = `The services are saved, but the node did not take their ports: ${err.message}. The container runs as before, on its previous ports; saving the container again, or restarting it, applies them.`;
        console.error(`Container ${container.id}: ${portsError}`);
      }
    }

    return ok(res, {
      containerId: container.id,
      jobId: restartJob ? restartJob.id : null,
      portsError,
      message: restartJob ? 'Container is restarting' : 'Container updated',
    });
  }),
);

// Manager's DELETE /containers/:id: the node's API deletes the container (after a hostname
// check), a failure there is logged, and the row goes; with one line added, a failure the
// node marks keepRow (the container may still run there) answers 502 and keeps the row.
router.delete(
  '/:id',
  asyncHandler(async (req, res) => {
    const { container } = await loadContainerForSession(req.params.siteId, req.params.id, req.session, { requireManage: true });
    const node = await Node.findByPk(container.nodeId);
    const warnings = [];
    if (container.containerId) {
      try {
        const api = await node.api();
        const config = await api.lxcConfig(node.name, container.containerId);
        if (config.hostname && config.hostname !== container.hostname) {
          throw new ApiError(
            409,
            'hostname_mismatch',
            `Hostname mismatch (DB: ${container.hostname} vs node: ${config.hostname}). Delete aborted.`,
          );
        }
        await api.deleteContainer(node.name, container.containerId, true, true);
      } catch (err) {
        if (err instanceof ApiError) throw err;
        // kube-provisioner: a node that cannot say the container is gone keeps its row, so the user can retry the delete.
        if (err.keepRow) throw new ApiError(502, 'node_deletion_failed', err.message);
        warnings.push(`Node-side deletion skipped or failed: ${err.message}`);
      }
    }
    await container.destroy();
    return ok(res, { deleted: true, warnings });
  }),
);

module.exports = router;
