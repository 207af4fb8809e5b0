import { Writable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { loggerOptions } from '../../src/common/logging/logger-options.js';
import { PinoNestLogger } from '../../src/common/logging/pino-nest-logger.js';

/** A Fastify instance logging at trace into memory, with the service's logger options. */
function capture(): { lines: () => Record<string, unknown>[]; log: FastifyBaseLogger } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  const log: FastifyBaseLogger = Fastify({ logger: { ...loggerOptions('trace'), stream } }).log;
  return {
    log,
    lines: () =>
      text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('logging', () => {
  it('redacts the raw request bytes Node puts on a client error', () => {
    const { log, lines } = capture();
    const err = Object.assign(new Error('Parse Error'), {
      rawPacket: Buffer.from('GET / HTTP/1.1\r\nAuthorization: Bearer very-secret-token\r\n'),
    });
    log.trace({ err }, 'client error');
    // Unredacted, the bytes would be logged as {type: 'Buffer', data: [...]}.
    expect((lines()[0]?.err as { rawPacket?: unknown }).rawPacket).toBe('[redacted]');
  });

  it('keeps only id, method and path of a request, whatever logs it', () => {
    const { log, lines } = capture();
    log.info(
      { req: { id: 'r1', method: 'GET', url: '/api/v2/people?token=x', headers: { authorization: 'Bearer y' } } },
      'seen',
    );
    expect(lines()[0]?.req).toEqual({ id: 'r1', method: 'GET', url: '/api/v2/people' });
  });

  it('writes Nest’s logger calls to pino with their context, fields and stacks', () => {
    const { log, lines } = capture();
    const logger = new PinoNestLogger(log);
    logger.warn({ provider: 'a', reason: 'signature' }, 'Webhook rejected', 'SignProviderA');
    logger.log('SIGTERM received', 'Main');
    logger.error('Boom', 'Error: Boom\n    at somewhere (file.js:1:1)', 'ExceptionHandler');
    const error = new Error('Shutdown failed');
    logger.error(error, error.stack);
    const [warn, info, nestError, shutdown] = lines();
    expect(warn).toMatchObject({ level: 40, provider: 'a', reason: 'signature', context: 'SignProviderA' });
    expect(warn?.msg).toBe('Webhook rejected');
    expect(info).toMatchObject({ level: 30, context: 'Main', msg: 'SIGTERM received' });
    expect(nestError).toMatchObject({ level: 50, context: 'ExceptionHandler', msg: 'Boom' });
    expect(String(nestError?.stack)).toContain('at somewhere');
    expect(shutdown?.context).toBeUndefined();
    expect(String((shutdown?.err as { message?: string } | undefined)?.message)).toBe('Shutdown failed');
  });

  it('logs Nest’s start-up chatter at debug, naming unprefixed controllers by their own path', () => {
    const { log, lines } = capture();
    const logger = new PinoNestLogger(log, { prefix: 'api', paths: ['health', 'docs'] });
    logger.log('Starting Nest application...', 'NestFactory');
    logger.log('HealthModule dependencies initialized', 'InstanceLoader');
    logger.log('HealthController {/api/health}:', 'RoutesResolver');
    logger.log('PeopleController {/api/people} (version: 1,2):', 'RoutesResolver');
    logger.log('Mapped {/health, GET} route', 'RouterExplorer');
    logger.log('Nest application successfully started', 'NestApplication');
    const written = lines();
    expect(written.map((line) => line.level)).toEqual([20, 20, 20, 20, 20, 20]);
    expect(written[2]?.msg).toBe('HealthController {/health}:');
    expect(written[3]?.msg).toBe('PeopleController {/api/people} (version: 1,2):');
  });
});
