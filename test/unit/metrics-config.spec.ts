import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config/app-config.js';
import { ConfigError } from '../../src/config/config-error.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';

// A server database and a key: nothing is written to an embedded data directory.
const BASE = { DATABASE_URL: 'postgres://u@db.example/x', APP_KEY: TEST_APP_KEY };

describe('METRICS_PORT and METRICS_HOST', () => {
  it('leaves metrics off by default, on loopback once a port is given', () => {
    expect(loadConfig(BASE).metricsPort).toBeUndefined();
    const config = loadConfig({ ...BASE, METRICS_PORT: '9464' });
    expect(config.metricsPort).toBe(9464);
    expect(config.metricsHost).toBe('127.0.0.1');
    expect(loadConfig({ ...BASE, METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' }).metricsHost).toBe('0.0.0.0');
  });

  it.each([
    [{ METRICS_PORT: 'nine' }, 'Invalid configuration: METRICS_PORT must be a port number.'],
    [{ METRICS_PORT: '0' }, 'Invalid configuration: METRICS_PORT must be between 1 and 65535.'],
    [
      { METRICS_PORT: '3000' },
      'Invalid configuration: METRICS_PORT must differ from PORT; metrics have a listener of their own.',
    ],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig({ ...BASE, ...env })).toThrow(new ConfigError(message));
  });
});
