import { createHash } from 'node:crypto';
import * as assert from 'uvu/assert';
import { withContentId } from '../../src/core/content-id.js';
import type { ServiceHandle } from '../helpers/service.js';

/** Small HTTP helpers for the conformance suite: real requests over 127.0.0.1. */
export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export async function request(url: string, init: RequestInit = {}): Promise<Reply> {
  const response = await fetch(url, init);
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** A client bound to a token and a target project (headers), like a configured remote. */
export function clientFor(service: ServiceHandle, token: string | undefined, org: string, project: string, base = service.url) {
  const headers = (extra: Record<string, string> = {}) => ({
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    'x-tracer-org': org,
    'x-tracer-project': project,
    ...extra,
  });
  return {
    headers: () => headers(),
    push: (family: string, items: unknown[], extra: Record<string, string> = {}) =>
      request(`${base}/api/v1/sync/${family}`, {
        method: 'POST',
        headers: headers({ 'content-type': 'application/json', ...extra }),
        body: JSON.stringify({ items }),
      }),
    post: (path: string, body: string | Buffer, contentType: string, extra: Record<string, string> = {}) =>
      request(`${base}${path}`, { method: 'POST', headers: headers({ 'content-type': contentType, ...extra }), body }),
    pull: (family: string, query = '') => request(`${base}/api/v1/sync/${family}${query ? `?${query}` : ''}`, { headers: headers() }),
    get: (path: string, extra: Record<string, string> = {}) => request(`${base}${path}`, { headers: headers(extra) }),
    head: (path: string) => request(`${base}${path}`, { method: 'HEAD', headers: headers() }),
    uploadBlob: (bytes: Buffer, sha = sha256(bytes)) =>
      request(`${base}/api/v1/blobs`, {
        method: 'POST',
        headers: headers({ 'content-type': 'application/octet-stream', 'x-content-sha256': sha }),
        body: bytes,
      }),
    /** Every item of a family, following next_cursor to the end. */
    async pullAll(family: string, limit = 500): Promise<any[]> {
      const items: any[] = [];
      let cursor = '';
      for (;;) {
        const page = await this.pull(family, `limit=${limit}${cursor ? `&after=${cursor}` : ''}`);
        assert.is(page.status, 200, page.text);
        items.push(...page.json.items);
        cursor = page.json.next_cursor;
        if (!page.json.has_more) return items;
      }
    },
  };
}
export type Client = ReturnType<typeof clientFor>;

export function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

let counter = 0;
const TS = '2024-05-01T12:00:00.000Z';

type Row = Record<string, any>;

export function trace(extra: Row = {}): Row {
  return withContentId<Row>({ ts: TS, n: counter++, tool: 'edit', ...extra }, 'id');
}
export function ledger(extra: Row = {}): Row {
  return withContentId<Row>({ ts: TS, commit: 'a'.repeat(40), trace_ids: [trace().id], n: counter++, ...extra }, 'sha');
}
export function commitLink(extra: Row = {}): Row {
  return withContentId<Row>({ ts: TS, commit: 'b'.repeat(64), n: counter++, ...extra }, 'id');
}
export function summary(extra: Row = {}): Row {
  return withContentId<Row>({ ts: TS, conversation_url: `https://chat.example/c/${counter++}`, text: 'did things', ...extra }, 'id');
}
export function conversation(bytes: Buffer, inline: boolean, extra: Record<string, unknown> = {}) {
  return {
    conversation_id: `conv-${counter++}`,
    content_sha256: sha256(bytes),
    size: bytes.length,
    ts: TS,
    ...(inline ? { content_base64: bytes.toString('base64') } : {}),
    ...extra,
  };
}

/** The contract's error shape, every time: problem+json, the code, and the response's request id. */
export function assertProblem(reply: Reply, status: number, code: string): void {
  assert.is(reply.status, status, `expected ${status} ${code}, got ${reply.status}: ${reply.text}`);
  assert.ok(reply.headers.get('content-type')?.startsWith('application/problem+json'), `content-type ${reply.headers.get('content-type')}`);
  assert.is(reply.json.code, code);
  assert.is(reply.json.status, status);
  assert.type(reply.json.title, 'string');
  assert.type(reply.json.detail, 'string');
  assert.type(reply.json.type, 'string');
  assert.is(reply.json.request_id, reply.headers.get('x-request-id'));
}
