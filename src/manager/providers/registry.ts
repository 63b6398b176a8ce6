// The ONE place a node type selects code. Everything else receives a Provider and never
// asks which kind of node it is running on.
import { DuplicateProviderError, UnknownNodeTypeError } from '../errors.js';
import type { Provider } from './types.js';

export class ProviderRegistry {
  private readonly byNodeType: ReadonlyMap<string, Provider>;

  constructor(providers: Iterable<Provider>) {
    const byNodeType = new Map<string, Provider>();
    for (const provider of providers) {
      if (byNodeType.has(provider.nodeType)) throw new DuplicateProviderError(provider.nodeType);
      byNodeType.set(provider.nodeType, provider);
    }
    this.byNodeType = byNodeType;
  }

  /** Node types with a provider, sorted for stable messages. */
  get nodeTypes(): readonly string[] {
    return [...this.byNodeType.keys()].sort();
  }

  /** The provider for `nodeType`; UnknownNodeTypeError (naming the known types) otherwise. */
  providerFor(nodeType: string): Provider {
    const provider = this.byNodeType.get(nodeType);
    if (!provider) throw new UnknownNodeTypeError(nodeType, this.nodeTypes);
    return provider;
  }
}
