'use strict';
// The terminal and log routes docs/manager.md adds to Manager's routers/api/v1/containers.js:
// the lines marked "kube-provisioner" are the ones the guide shows (its test checks they are
// here, as written). Manager's own loadContainerForSession stands here in our words, with
// its view rule: an admin, the container's owner, or a user it is shared with.
const express = require('express');
const { Container, Node, Sequelize } = require(process.env.MANAGER_MODELS);
const { ApiError } = require('./api.cjs');
// kube-provisioner: the log's Server-Sent Events handler (the terminal's is in server.js).
const { containerLogs } = require('kube-provisioner/manager');

const router = express.Router({ mergeParams: true });

async function loadContainerForSession(siteId, containerId, session) {
  const id = Number(containerId);
  if (!Number.isSafeInteger(id) || id <= 0) throw new ApiError(400, 'invalid_request', 'Container id must be a positive integer');
  const where = { id, siteId: Number(siteId) };
  if (!session.isAdmin) {
    where[Sequelize.Op.or] = [
      { username: session.user },
      {
        id: {
          [Sequelize.Op.in]: Sequelize.literal(
            `(SELECT "containerId" FROM "ContainerCollaborators" WHERE "username" = ${Container.sequelize.escape(session.user)})`,
          ),
        },
      },
    ];
  }
  const container = await Container.findOne({ where, include: [{ model: Node, as: 'node' }] });
  if (!container || !container.node) throw new ApiError(404, 'not_found', 'Container not found');
  return { container };
}

// kube-provisioner: who may open a container's terminal or read its log: whoever may see it (owner, collaborators, admins).
async function containerAccess(req, { siteId, id }) {
  if (!req.session?.user) throw new ApiError(401, 'unauthorized', 'Unauthorized');
  const { container } = await loadContainerForSession(siteId, id, req.session);
  return { user: req.session.user, container, node: container.node };
}

// kube-provisioner: GET /containers/:id/logs?follow=true&tail=100 (also previous, timestamps, since): the container's log as Server-Sent Events.
router.get('/:id/logs', containerLogs({ authorize: containerAccess, instance: process.env.MANAGER_INSTANCE_ID }));

module.exports = router;
// kube-provisioner: server.js gives the same rule to the terminal's upgrade handler.
module.exports.containerAccess = containerAccess;
