import type { DiscoverableDecorator, DiscoveryService, MetadataScanner } from '@nestjs/core';

export interface Discovered<M, T = object> {
  metadata: M;
  instance: T;
  // The class name, for error messages that say where a duplicate was declared.
  className: string;
}

// Every provider whose class carries `decorator`, with the decorator's argument, in the order the
// modules were imported and list their providers (DiscoveryService's own lookup by key has no stable
// order). A provider that is not built yet (request-scoped, or a factory) has no instance and is
// skipped: handlers are singletons.
export function discoverClasses<M, T = object>(
  discovery: DiscoveryService,
  decorator: DiscoverableDecorator<M>,
): Discovered<M, T>[] {
  const found: Discovered<M, T>[] = [];
  for (const wrapper of discovery.getProviders()) {
    const instance = wrapper.instance as T | undefined;
    const metatype = wrapper.metatype;
    if (!instance || typeof metatype !== 'function') continue;
    // Own metadata only: a subclass of a handler is not that handler again.
    const metadata = Reflect.getOwnMetadata(decorator.KEY, metatype) as M | undefined;
    if (metadata === undefined) continue;
    found.push({ metadata, instance, className: metatype.name });
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
