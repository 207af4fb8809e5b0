import { Injectable } from '@nestjs/common';

/**
 * The time the delivery schedule reads (retries, the failure window that disables an endpoint).
 * Leases use the database's clock; this one can be moved forward, so a test can cross a three-day
 * window without waiting for it.
 */
@Injectable()
export class WebhookClock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  /** Moves this clock (not the process's) forward. */
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
