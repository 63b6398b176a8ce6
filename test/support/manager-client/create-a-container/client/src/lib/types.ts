// The API's shapes that the stand-in's pages read. Node and Container keep the fields, and
// the order around them, that the kit's patch anchors on.

export interface Node {
  id: number;
  name: string;
  nodeType: 'proxmox' | 'dummy' | 'docker';
  siteId: number;
  ipv4Address: string | null;
  apiUrl: string | null;
  tokenId: string | null;
  tlsVerify: boolean | null;
  imageStorage: string;
  volumeStorage: string;
  networkBridge: string;
  nvidiaAvailable: boolean;
  hasSecret: boolean;
}

export interface AgentServiceStatus {
  state: string;
}

export type ContainerStatus = 'running' | 'offline' | 'creating' | 'failed' | 'missing' | 'unknown';

export interface ContainerService {
  id: number;
  type: 'http' | 'transport' | 'dns';
  internalPort: number;
}

export interface Container {
  id: number;
  containerId: number | null;
  hostname: string;
  status: ContainerStatus;
  creationJobId: number | null;
  httpEntries: { port: number; externalUrl: string | null }[];
  nodeName: string | null;
  nodeApiUrl: string | null;
  services: ContainerService[];
  createdAt: string;
}
