// Stand-in for Manager's container routes: only the container serializer, which the kit's
// patch extends with the node's type.
'use strict';

function serializeContainer(c, site, status) {
  const services = c.services || [];
  const httpEntries = services
    .filter((service) => service.type === 'http')
    .map((service) => ({ port: service.internalPort, externalUrl: service.externalUrl || null }));
  return {
    id: c.id,
    containerId: c.containerId,
    hostname: c.hostname,
    siteId: site.id,
    status,
    creationJobId: c.creationJobId,
    httpEntries,
    nodeName: c.node ? c.node.name : null,
    nodeApiUrl: c.node ? c.node.apiUrl : null,
    services: services.map((s) => ({
      id: s.id,
      type: s.type,
      internalPort: s.internalPort,
    })),
    createdAt: c.createdAt,
  };
}

module.exports = { serializeContainer };
