import type { ExecutionContext } from '@nestjs/common';

type Handler = ReturnType<ExecutionContext['getHandler']>;
type Controller = ReturnType<ExecutionContext['getClass']>;

/**
 * A value per route, worked out on the route's first request and kept: a route's metadata is fixed
 * once the application is built. Keyed by controller and handler, as one handler (a write of
 * ReadOnlyRoutes) can serve several controllers.
 */
export class RouteMemo<T> {
  private readonly byController = new WeakMap<Controller, WeakMap<Handler, T>>();

  constructor(private readonly compute: (handler: Handler, controller: Controller) => T) {}

  of(handler: Handler, controller: Controller): T {
    let handlers = this.byController.get(controller);
    if (!handlers) this.byController.set(controller, (handlers = new WeakMap()));
    if (handlers.has(handler)) return handlers.get(handler) as T;
    const value = this.compute(handler, controller);
    handlers.set(handler, value);
    return value;
  }
}
