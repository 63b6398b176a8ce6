// Unit tests of the provider registry with stand-in providers (no provider work runs).
import { EMPTY } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { DuplicateProviderError, UnknownNodeTypeError } from '../../../../src/manager/errors.js';
import { ProviderRegistry } from '../../../../src/manager/providers/registry.js';
import type { Provider } from '../../../../src/manager/providers/types.js';

const stub = (nodeType: string): Provider => ({ nodeType, provision$: () => EMPTY });

describe('ProviderRegistry', () => {
  it('returns the provider registered for a node type', () => {
    const kubernetes = stub('kubernetes');
    const registry = new ProviderRegistry([stub('proxmox'), kubernetes]);
    expect(registry.providerFor('kubernetes')).toBe(kubernetes);
  });

  it('names the known types, sorted, when a node type has no provider', () => {
    const registry = new ProviderRegistry([stub('proxmox'), stub('docker'), stub('kubernetes')]);
    expect(() => registry.providerFor('vmware')).toThrow(UnknownNodeTypeError);
    expect(() => registry.providerFor('vmware')).toThrow('No provider for node type "vmware" (known: docker, kubernetes, proxmox)');
    expect(registry.nodeTypes).toEqual(['docker', 'kubernetes', 'proxmox']);
  });

  it('refuses two providers for one node type', () => {
    expect(() => new ProviderRegistry([stub('docker'), stub('docker')])).toThrow(DuplicateProviderError);
  });
});
