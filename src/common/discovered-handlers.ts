import type { DiscoverableDecorator, DiscoveryService, MetadataScanner } from '@nestjs/core';

export interface Discovered<M, T = object> {
  metadata: M;
  instance: T;
  // The class name, for error messages that say where a duplicate was declared.
  className: string;
}

// Every provider whose class carries `decorator`, in module order, with the decorator's argument.
// A provider that is not built yet (request-scoped, or a factory) has no instance and is skipped:
// handlers are singletons.
export function discoverClasses<M, T = object>(
  discovery: DiscoveryService,
  decorator: DiscoverableDecorator<M>,
): Discovered<M, T>[] {
  const found: Discovered<M, T>[] = [];
  for (const wrapper of discovery.getProviders({ metadataKey: decorator.KEY })) {
    const instance = wrapper.instance as T | undefined;
    if (!instance) continue;
    const metadata = discovery.getMetadataByDecorator(decorator, wrapper) as M;
    found.push({ metadata, instance, className: wrapper.metatype?.name ?? String(wrapper.token) });
  }
  return found;
}

export interface DiscoveredMethod<M> extends Discovered<M> {
  methodName: string;
}

// Every provider method that carries `decorator` (a method decorator), bound to its instance.
export function discoverMethods<M>(
  discovery: DiscoveryService,
  scanner: MetadataScanner,
  decorator: DiscoverableDecorator<M>,
): DiscoveredMethod<M>[] {
  const found: DiscoveredMethod<M>[] = [];
  for (const wrapper of discovery.getProviders()) {
    const instance = wrapper.instance as Record<string, unknown> | undefined;
    if (!instance || typeof instance !== 'object') continue;
    const prototype = Object.getPrototypeOf(instance) as object | null;
    if (!prototype) continue;
    for (const methodName of scanner.getAllMethodNames(prototype)) {
      if (typeof instance[methodName] !== 'function') continue;
      const metadata: M | undefined = discovery.getMetadataByDecorator(decorator, wrapper, methodName);
      if (metadata === undefined) continue;
      found.push({
        metadata,
        instance,
        methodName,
        className: wrapper.metatype?.name ?? String(wrapper.token),
      });
    }
  }
  return found;
}
