import { Injectable } from '@nestjs/common';

/** Wall-clock time in ms; a provider so tests can move time instead of sleeping. */
@Injectable()
export class Clock {
  now(): number {
    return Date.now();
  }
}
