// Where things live on the wire (wire contract): the /api/v1 prefix, every
// route, and the API root a remote URL points at. The URL grammar itself is
// core/remote-url.ts; the service registers its routes from these too.
import { GATEWAY_SEGMENT, type ParsedRemoteUrl } from '../core/remote-url.js';

export const API_PREFIX = '/api/v1';

/** Upload and pull of one family's records. */
export function syncRoute(family: string): string {
  return `${API_PREFIX}/sync/${family}`;
}

export const BLOBS_ROUTE = `${API_PREFIX}/blobs`;
export function blobRoute(sha256: string): string {
  return `${BLOBS_ROUTE}/${sha256}`;
}

export const WHOAMI_ROUTE = `${API_PREFIX}/auth/whoami`;
export const ADMIN_PROJECTS_ROUTE = `${API_PREFIX}/admin/projects`;
export const ADMIN_TOKENS_ROUTE = `${API_PREFIX}/admin/tokens`;
export const ADMIN_TOKENS_REVOKE_ROUTE = `${API_PREFIX}/admin/tokens/revoke`;
/** Issue 31: forget, tombstones, retention and the audit log. */
export const FORGET_ROUTE = `${API_PREFIX}/forget`;
export const TOMBSTONES_ROUTE = `${API_PREFIX}/tombstones`;
export const RETENTION_ROUTE = `${API_PREFIX}/retention`;
export const RETENTION_RUN_ROUTE = `${API_PREFIX}/retention/run`;
export const AUDIT_ROUTE = `${API_PREFIX}/audit`;

/**
 * Where `/api/v1/...` routes of this remote live: the bare base for a standalone
 * service, `<base>/gw/<org>/<project>` behind a gateway.
 */
export function apiRoot(remote: Pick<ParsedRemoteUrl, 'base_url' | 'org_slug' | 'project_slug' | 'mount'>): string {
  return remote.mount === 'gateway' ? `${remote.base_url}/${GATEWAY_SEGMENT}/${remote.org_slug}/${remote.project_slug}` : remote.base_url;
}
