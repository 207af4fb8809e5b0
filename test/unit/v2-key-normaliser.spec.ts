import { describe, expect, it } from '@jest/globals';
import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { lastValueFrom, of } from 'rxjs';
import { Public } from '../../src/common/access/public.decorator.js';
import { RejectedBody, V2KeyNormaliserInterceptor } from '../../src/common/casing/v2-key-normaliser.interceptor.js';

class Routes {
  authenticated(this: void): void {}
  @Public() login(this: void): void {}
}

function contextFor(url: string, body: unknown, handler: keyof Routes = 'authenticated') {
  const request = { url, body };
  const context = {
    getType: () => 'http',
    getHandler: () => Routes.prototype[handler],
    getClass: () => Routes,
    switchToHttp: () => ({ getRequest: () => request }),
  } as unknown as ExecutionContext;
  return { request, context };
}

const next: CallHandler = { handle: () => of('handled') };
const interceptor = new V2KeyNormaliserInterceptor(new Reflector());

async function run(url: string, body: unknown, handler: keyof Routes = 'authenticated'): Promise<unknown> {
  const { request, context } = contextFor(url, body, handler);
  await lastValueFrom(interceptor.intercept(context, next));
  return request.body;
}

const NESTED = {
  Title: 'T',
  Contact: { PhoneNumbers: [{ PhoneType: 'Mobile', IsPrimary: true }], EmailAddress: 'a@b.c' },
};

describe('v2 key normaliser interceptor', () => {
  it('snake-cases an authenticated v2 body at every depth: Contact.PhoneNumbers[0].PhoneType', async () => {
    expect(await run('/api/v2/leads', NESTED)).toEqual({
      title: 'T',
      contact: { phone_numbers: [{ phone_type: 'Mobile', is_primary: true }], email_address: 'a@b.c' },
    });
  });

  it.each([
    ['a v1 body', '/api/v1/leads', 'authenticated'],
    ['a public (login) body', '/api/v2/login', 'login'],
    ['an unversioned webhook body', '/api/webhooks/signprovider-a', 'authenticated'],
  ] as const)('leaves %s untouched', async (_name, url, handler) => {
    const body = structuredClone(NESTED);
    expect(await run(url, body, handler)).toBe(body);
    expect(body).toEqual(NESTED);
  });

  it('replaces a body nested too deeply by a RejectedBody for validation to refuse', async () => {
    let body: unknown = {};
    for (let i = 0; i < 65; i++) body = { Level: body };
    const result = await run('/api/v2/leads', body);
    expect(result).toBeInstanceOf(RejectedBody);
    expect((result as RejectedBody).message).toMatch(/nested too deeply: at most 64 levels/);
  });

  it('passes a request without a body through', async () => {
    expect(await run('/api/v2/leads', undefined)).toBeUndefined();
  });
});
