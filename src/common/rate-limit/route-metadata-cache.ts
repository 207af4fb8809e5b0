import type { ExecutionContext, Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { RouteMemo } from '../http/route-memo.js';

type RouteHandler = ReturnType<ExecutionContext['getHandler']>;
type Targets = Parameters<Reflector['getAllAndOverride']>[1];

/**
 * A Reflector that reads a route's metadata (handler, then controller) once per key and keeps
 * it: decorators are fixed once the application is built. The throttler's own loop (where
 * `ApiThrottlerGuard.count` hands a request to it, and the budget read) goes through this.
 */
export class RouteMetadataCache extends Reflector {
  private readonly routes = new RouteMemo<Map<unknown, unknown>>(() => new Map());

  override getAllAndOverride<TResult = unknown, TKey = unknown>(metadataKey: TKey, targets: Targets): TResult {
    const [handler, controller] = targets;
    if (targets.length !== 2 || !handler || !controller) return super.getAllAndOverride(metadataKey, targets);
    const values = this.routes.of(handler as RouteHandler, controller as Type);
    if (!values.has(metadataKey)) values.set(metadataKey, super.getAllAndOverride(metadataKey, targets));
    return values.get(metadataKey) as TResult;
  }
}
