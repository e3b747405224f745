import { startService, type ServiceHandle, type ServiceOptions } from '../helpers/service.js';
import { clientFor, type Client } from './http.js';

/**
 * Services and tenants shared by one backend's run of the conformance suite:
 * org acme with projects web and api, org globex with project shop.
 */
export interface Fixture {
  backend: 'sqlite' | 'postgres';
  service: ServiceHandle;
  tokens: { web: string; api: string; acmeOrg: string; shop: string; globexOrg: string };
  /** Project token acme/web. */
  web: Client;
  /** Project token acme/api. */
  api: Client;
  /** Org-wide acme token, targeting acme/web. */
  acmeOrgOnWeb: Client;
  /** Project token globex/shop. */
  shop: Client;
  start(options?: ServiceOptions): Promise<ServiceHandle>;
}

export async function createFixture(backend: 'sqlite' | 'postgres'): Promise<Fixture> {
  const start = (options: ServiceOptions = {}) => startService({ backend, ...options });
  const service = await start();
  await service.createProject('acme', 'web');
  await service.createProject('acme', 'api');
  await service.createProject('globex', 'shop');
  const tokens = {
    web: await service.createToken({ org: 'acme', project: 'web', name: 'web-laptop' }),
    api: await service.createToken({ org: 'acme', project: 'api', name: 'api-ci' }),
    acmeOrg: await service.createToken({ org: 'acme', name: 'acme-ci' }),
    shop: await service.createToken({ org: 'globex', project: 'shop', name: 'shop' }),
    globexOrg: await service.createToken({ org: 'globex', name: 'globex-ci' }),
  };
  return {
    backend,
    service,
    tokens,
    web: clientFor(service, tokens.web, 'acme', 'web'),
    api: clientFor(service, tokens.api, 'acme', 'api'),
    acmeOrgOnWeb: clientFor(service, tokens.acmeOrg, 'acme', 'web'),
    shop: clientFor(service, tokens.shop, 'globex', 'shop'),
    start,
  };
}

/** A service with one registered project and its token, for tests that need their own settings. */
export async function soloService(fixture: Fixture, options: ServiceOptions = {}) {
  const service = await fixture.start(options);
  await service.createProject('solo', 'p');
  const token = await service.createToken({ org: 'solo', project: 'p' });
  return { service, token, client: clientFor(service, token, 'solo', 'p') };
}
