import type { ExecutionContext, Type } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import { IS_PUBLIC } from './public.decorator.js';
import { WITHOUT_ENTERPRISE } from '../tenancy/without-enterprise.decorator.js';

/** Which of the access checks a route opts out of, from its handler's and controller's metadata. */
export interface RouteAccess {
  /** @Public(): no token needed (and so no enterprise either). */
  readonly isPublic: boolean;
  /** @WithoutEnterprise(): a token but no enterprise header (enterprise discovery). */
  readonly withoutEnterprise: boolean;
}

/**
 * A route's RouteAccess, worked out on its first request and kept: metadata is fixed once the
 * application is built. Keyed by controller and handler, as one handler (a write of
 * ReadOnlyRoutes) can serve several controllers.
 */
export class RouteAccessCache {
  private readonly byController = new WeakMap<Type, WeakMap<ReturnType<ExecutionContext['getHandler']>, RouteAccess>>();

  constructor(private readonly reflector: Reflector) {}

  of(context: ExecutionContext): RouteAccess {
    const controller = context.getClass();
    const handler = context.getHandler();
    let handlers = this.byController.get(controller);
    if (!handlers) this.byController.set(controller, (handlers = new WeakMap()));
    let access = handlers.get(handler);
    if (!access) {
      const flag = (key: string) => this.reflector.getAllAndOverride<boolean>(key, [handler, controller]) === true;
      access = {
        isPublic: flag(IS_PUBLIC),
        withoutEnterprise: flag(WITHOUT_ENTERPRISE),
      };
      handlers.set(handler, access);
    }
    return access;
  }
}
