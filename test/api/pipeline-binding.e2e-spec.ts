import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RequestMethod } from '@nestjs/common';
import { INTERCEPTORS_METADATA, METHOD_METADATA, PATH_METADATA, VERSION_METADATA } from '@nestjs/common/constants.js';
import { ApplicationConfig, ModulesContainer } from '@nestjs/core';
import { apiHeaders, importFixture, loginToken, tenantDocument, type Tenant } from '../helpers/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { writableIn } from '../../src/resources/tenant-resource.js';
import { TENANT_RESOURCES } from '../../src/resources/tenant-resources.js';

/**
 * Interceptors are bound only where they act: none is global, and the only route interceptor is
 * the v2 key normaliser of the v2 writes (of every resource the descriptors make writable in v2). A read of either version goes through no rxjs
 * pipeline; v1 records are still cased (by a hook on v1 answers), bare ones included.
 */
describe('where the pipeline steps are bound', () => {
  let t: TestApp;
  let tenant: Tenant;
  let token: string;
  let leadId: string;

  beforeAll(async () => {
    t = await createTestApp();
    const fixture = tenantDocument();
    tenant = fixture.tenant;
    await importFixture(t, fixture.doc);
    token = await loginToken(t.app, tenant.user.email, tenant.user.password);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v2/leads',
      headers: apiHeaders('v2', token, tenant.enterpriseId),
      payload: { title: 'Bound', person_name: 'Tia' },
    });
    leadId = created.json<{ data: { id: string } }>().data.id;
  });
  afterAll(async () => {
    await t.close();
  });

  it('has no global interceptor', () => {
    expect(t.app.get(ApplicationConfig).getGlobalInterceptors()).toEqual([]);
  });

  it('binds route interceptors to the v2 writes of the writable resources only', () => {
    const bound: string[] = [];
    for (const module of t.app.get(ModulesContainer).values()) {
      for (const { metatype } of module.controllers.values()) {
        if (!metatype) continue;
        const prototype = metatype.prototype as Record<string, unknown>;
        if (Reflect.getMetadata(INTERCEPTORS_METADATA, metatype)) bound.push(metatype.name);
        const base = String(Reflect.getMetadata(PATH_METADATA, metatype) ?? '');
        const version = String(Reflect.getMetadata(VERSION_METADATA, metatype) ?? 'none');
        let proto: object | null = prototype;
        const methods = new Set<string>();
        while (proto && proto !== Object.prototype) {
          for (const name of Object.getOwnPropertyNames(proto)) methods.add(name);
          proto = Object.getPrototypeOf(proto) as object | null;
        }
        for (const name of methods) {
          const handler = prototype[name];
          if (typeof handler !== 'function' || name === 'constructor') continue;
          if (!Reflect.getMetadata(INTERCEPTORS_METADATA, handler)) continue;
          const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
          const path = String(Reflect.getMetadata(PATH_METADATA, handler) ?? '/');
          bound.push(`v${version} ${method} /${base}${path === '/' ? '' : `/${path}`}`);
        }
      }
    }
    const v2Writes = TENANT_RESOURCES.filter((resource) => writableIn(resource, 'v2')).flatMap((resource) => [
      `v2 POST /${resource.path}`,
      `v2 PUT /${resource.path}/:id`,
    ]);
    expect(v2Writes).toContain('v2 POST /leads');
    expect(bound.sort()).toEqual(v2Writes.sort());
  });

  it('still answers v1 in v1 casing: a list, a record, and the bare record of an update', async () => {
    const headers = apiHeaders('v1', token, tenant.enterpriseId);
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/leads', headers });
    expect(Object.keys(list.json<{ data: object[] }>().data[0] ?? {})).toContain('Title');
    const one = await t.app.inject({ method: 'GET', url: `/api/v1/leads/${leadId}`, headers });
    expect(one.json<{ data: { Title: string } }>().data.Title).toBe('Bound');
    const updated = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/leads/${leadId}`,
      headers,
      payload: { Title: 'Bound again', PersonName: 'Tia' },
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json<{ Title: string; ID?: string }>().Title).toBe('Bound again');
    const v2 = await t.app.inject({
      method: 'GET',
      url: `/api/v2/leads/${leadId}`,
      headers: apiHeaders('v2', token, tenant.enterpriseId),
    });
    expect(v2.json<{ data: { title: string } }>().data.title).toBe('Bound again');
  });
});
