import { Reflector } from '@nestjs/core';

type Targets = Parameters<Reflector['getAllAndOverride']>[1];

/**
 * A Reflector that reads a route's metadata (handler, then controller) once per key and keeps
 * it: decorators are fixed once the application is built. The throttler's guard reads six keys
 * per throttler on every request; through this it does so once per route.
 */
export class RouteMetadataCache extends Reflector {
  private readonly byHandler = new WeakMap<object, WeakMap<object, Map<unknown, unknown>>>();

  override getAllAndOverride<TResult = unknown, TKey = unknown>(metadataKey: TKey, targets: Targets): TResult {
    const [handler, controller] = targets;
    if (targets.length !== 2 || !handler || !controller) return super.getAllAndOverride(metadataKey, targets);
    let controllers = this.byHandler.get(handler);
    if (!controllers) this.byHandler.set(handler, (controllers = new WeakMap()));
    let values = controllers.get(controller);
    if (!values) controllers.set(controller, (values = new Map()));
    if (!values.has(metadataKey)) values.set(metadataKey, super.getAllAndOverride(metadataKey, targets));
    return values.get(metadataKey) as TResult;
  }
}
