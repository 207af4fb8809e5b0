import { describe, expect, it, afterAll, beforeAll } from '@jest/globals';
import Fastify, { type FastifyInstance } from 'fastify';
import { compressWhenAsked, encodingAskedFor } from '../../src/common/http/compression.js';

/**
 * A kept list page is compressed outside the compression plugin, so the encoding chosen for it
 * must be the plugin's own choice for the same request. Checked against the plugin itself.
 */
describe('encodingAskedFor agrees with the compression plugin', () => {
  let fastify: FastifyInstance;
  const body = { data: Array.from({ length: 100 }, (_, i) => ({ id: i, last_name: 'Citizen' })) };

  beforeAll(async () => {
    fastify = Fastify();
    await compressWhenAsked(fastify);
    fastify.get('/page', () => body);
    await fastify.ready();
  });
  afterAll(async () => {
    await fastify.close();
  });

  const cases: [string, Record<string, string>][] = [
    ['no Accept-Encoding', {}],
    ['gzip', { 'accept-encoding': 'gzip' }],
    ['br', { 'accept-encoding': 'br' }],
    ['gzip, deflate, br (a browser)', { 'accept-encoding': 'gzip, deflate, br' }],
    ['gzip, deflate (Node fetch)', { 'accept-encoding': 'gzip, deflate' }],
    ['weights preferring gzip', { 'accept-encoding': 'br;q=0.5, gzip;q=0.9' }],
    ['br refused', { 'accept-encoding': 'br;q=0, gzip' }],
    ['everything refused', { 'accept-encoding': 'gzip;q=0, br;q=0' }],
    ['*', { 'accept-encoding': '*' }],
    ['x-gzip', { 'accept-encoding': 'x-gzip' }],
    ['upper case', { 'accept-encoding': 'GZIP' }],
    ['identity only', { 'accept-encoding': 'identity' }],
    ['deflate only', { 'accept-encoding': 'deflate' }],
    ['empty', { 'accept-encoding': '' }],
    ['x-no-compression', { 'accept-encoding': 'gzip', 'x-no-compression': '1' }],
  ];

  it.each(cases)('%s', async (_name, headers) => {
    const res = await fastify.inject({ method: 'GET', url: '/page', headers });
    expect(res.statusCode).toBe(200);
    expect(encodingAskedFor(headers)).toBe(res.headers['content-encoding']);
  });
});
