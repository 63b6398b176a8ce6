import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The published bundle replaces undici, which client-node imports only for its fetch
// transport, with a stand-in (scripts/build.ts); the unit tests load client-node the same way.
const undiciStandIn = fileURLToPath(new URL('scripts/build/undici-stand-in.mjs', import.meta.url));

// Four projects: `unit` (fakes, marble tests, no cluster), `package` (the packed tarball),
// `integration` (a real kube-apiserver, controller manager and scheduler with KWOK, started
// once per run) and `realnode` (the same with a real kubelet node beside KWOK's).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/marble/**/*.test.ts'],
          environment: 'node',
          alias: { undici: undiciStandIn },
          server: { deps: { inline: ['@kubernetes/client-node'] } },
        },
      },
      {
        test: {
          // The packed tarball in scratch projects (Jest, tsc); installs from the npm registry.
          name: 'package',
          include: ['test/package/**/*.test.ts'],
          environment: 'node',
          testTimeout: 300_000,
          hookTimeout: 600_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/integration/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          // The same control plane plus a real node (kubelet, containerd, kube-proxy): root only,
          // one per machine (its global setup waits for the machine-wide lock).
          name: 'realnode',
          include: ['test/realnode/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/realnode/global-setup.ts'],
          testTimeout: 120_000,
          // The lock may be held by another suite on this machine for a while.
          hookTimeout: 1_500_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
