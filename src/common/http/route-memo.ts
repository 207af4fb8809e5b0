import type { ExecutionContext } from '@nestjs/common';

type Handler = ReturnType<ExecutionContext['getHandler']>;
type Controller = ReturnType<ExecutionContext['getClass']>;

/**
 * A value per route, worked out on the route's first request and kept: a route's metadata is fixed
 * once the application is built. Keyed by controller and handler, as one handler (a write of
 * ReadOnlyRoutes) can serve several controllers.
 */
/** `T` leaves out undefined: a kept value is told from a missing one by one look-up. */
export class RouteMemo<T extends NonNullable<unknown> | null> {
  private readonly byController = new WeakMap<Controller, WeakMap<Handler, T>>();

  constructor(private readonly compute: (handler: Handler, controller: Controller) => T) {}

  of(handler: Handler, controller: Controller): T {
    let handlers = this.byController.get(controller);
    if (!handlers) this.byController.set(controller, (handlers = new WeakMap()));
    const kept = handlers.get(handler);
    if (kept !== undefined) return kept;
    const value = this.compute(handler, controller);
    handlers.set(handler, value);
    return value;
  }
}
