import { Injectable } from '@nestjs/common';
import type { LookupAddress } from 'node:dns';
import { systemResolver, type Resolver } from './webhook-address.js';

/**
 * How endpoint host names are resolved, when an endpoint is saved and at every connection: the
 * system resolver. A provider of its own so a test can answer as a rebinding DNS server would.
 */
@Injectable()
export class WebhookResolver {
  private resolver: Resolver = systemResolver;

  resolve(hostname: string): Promise<LookupAddress[]> {
    return this.resolver(hostname);
  }

  /** Answers names with `resolver` from now on (tests). */
  use(resolver: Resolver): void {
    this.resolver = resolver;
  }
}
