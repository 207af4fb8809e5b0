import { describe, expect, it } from '@jest/globals';
import { QueryFailedError } from 'typeorm';
import { isDatabaseUnavailable } from '../../src/database/database-unavailable.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('which errors mean the database is unavailable (503) rather than a bug (500)', () => {
  it.each([
    ['connection refused', withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['connection reset', withCode('ECONNRESET')],
    ['a host that cannot be resolved', withCode('ENOTFOUND')],
    ['a terminated backend (57P01)', withCode('57P01', 'terminating connection due to administrator command')],
    ['a server starting up (57P03)', withCode('57P03')],
    ['too many connections (53300)', withCode('53300')],
    ['a statement timeout (57014)', withCode('57014', 'canceling statement due to statement timeout')],
    ['a lock not granted within lock_timeout (55P03)', withCode('55P03', 'canceling statement due to lock timeout')],
    ['a connection exception (08006)', withCode('08006')],
    ['a connection closed under a query', new Error('Connection terminated unexpectedly')],
    ['waiting for a pooled connection too long', new Error('timeout exceeded when trying to connect')],
    ['a connect timeout', new Error('Connection terminated due to connection timeout')],
    ['a client that lost its connection', new Error('Client has encountered a connection error and is not queryable')],
    ['TypeORM wrapping a driver error', new QueryFailedError('SELECT 1', [], withCode('57P01'))],
    [
      'an error kept as the cause',
      new Error('The bearer token could not be resolved.', { cause: withCode('ECONNREFUSED') }),
    ],
    [
      'one refused address of several',
      Object.assign(new Error('AggregateError'), { errors: [withCode('ECONNREFUSED')] }),
    ],
  ])('%s', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    [
      'a missing table (42P01)',
      new QueryFailedError('SELECT', [], withCode('42P01', 'relation "users_gone" does not exist')),
    ],
    ['a unique violation (23505)', withCode('23505')],
    ['a syntax error (42601)', withCode('42601')],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['not an error at all', 'ECONNREFUSED'],
    ['null', null],
  ])('not %s', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it('stops on a cause cycle', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    Object.assign(a, { cause: b });
    expect(isDatabaseUnavailable(a)).toBe(false);
  });
});
