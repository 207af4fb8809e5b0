import { RequestMethod, type ExecutionContext, type Type } from '@nestjs/common';
import { METHOD_METADATA } from '@nestjs/common/constants.js';
import type { Reflector } from '@nestjs/core';
import { RouteMemo } from '../http/route-memo.js';
import { IS_PUBLIC } from './public.decorator.js';
import { ADMIN_ONLY, REQUIRED_ABILITY, type RequiredAbility } from './required-access.js';
import { WITHOUT_ENTERPRISE } from '../tenancy/without-enterprise.decorator.js';

/** Which of the access checks a route opts out of, from its handler's and controller's metadata. */
export interface RouteAccess {
  /** @Public(): no token needed (and so no enterprise either). */
  readonly isPublic: boolean;
  /** @WithoutEnterprise(): a token but no enterprise header (enterprise discovery). */
  readonly withoutEnterprise: boolean;
  /** What a token with abilities needs for it. */
  readonly ability: RequiredAbility;
  /** @AdminOnly(): the user must be an admin of the header's enterprise. */
  readonly adminOnly: boolean;
}

const READ: RequiredAbility = { kind: 'ability', ability: 'read' };
const UNSCOPED: RequiredAbility = { kind: 'unscoped' };

/** A handler's RouteAccess from its and its controller's metadata (the guard, and the OpenAPI documents). */
export function routeAccessOf(reflector: Reflector, handler: object, controller: object): RouteAccess {
  const targets = [handler, controller] as unknown as Type[];
  const flag = (key: string) => reflector.getAllAndOverride<boolean>(key, targets) === true;
  const method = reflector.get<RequestMethod | undefined>(METHOD_METADATA, handler as Type);
  return {
    isPublic: flag(IS_PUBLIC),
    withoutEnterprise: flag(WITHOUT_ENTERPRISE),
    ability:
      reflector.getAllAndOverride<RequiredAbility | undefined>(REQUIRED_ABILITY, targets) ??
      (method === RequestMethod.GET ? READ : UNSCOPED),
    adminOnly: flag(ADMIN_ONLY),
  };
}

/** A route's RouteAccess, worked out on its first request and kept (RouteMemo). */
export class RouteAccessCache {
  private readonly routes: RouteMemo<RouteAccess>;

  constructor(reflector: Reflector) {
    this.routes = new RouteMemo((handler, controller) => routeAccessOf(reflector, handler, controller));
  }

  of(context: ExecutionContext): RouteAccess {
    return this.routes.of(context.getHandler(), context.getClass());
  }
}
