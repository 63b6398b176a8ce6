import { api } from './api';
import type { Container, Node } from './types';

export const keys = {
  nodes: (siteId: string) => ['sites', siteId, 'nodes'] as const,
  node: (siteId: string, id: string) => ['sites', siteId, 'nodes', id] as const,
  containers: (siteId: string) => ['sites', siteId, 'containers'] as const,
};

export const queries = {
  getNode: (siteId: string, id: string) => api.get<Node>(`/api/v1/sites/${siteId}/nodes/${id}`),
  listContainers: (siteId: string) => api.get<Container[]>(`/api/v1/sites/${siteId}/containers`),
};
