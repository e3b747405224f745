import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { SHA256_HEX } from '../../core/content-id.js';
import { BLOBS_ROUTE } from '../../protocol/routes.js';
import { blobTooLarge, capped } from '../blob-stream.js';
import { projectOf, requireProject, type ServiceContext } from '../context.js';
import { auditBlobRead } from '../privacy/guards.js';
import { blobForgotten } from '../privacy/tombstones.js';
import { ProblemError } from '../problem.js';
import type { StreamFinding } from '../../redact/stream.js';
import { requireRole } from '../roles.js';

export const SHA_HEADER = 'x-content-sha256';

/**
 * HEAD/GET/POST blobs (wire contract "Blobs"). A blob is visible only to the
 * projects that uploaded it: another tenant gets the same 404 as for a blob nobody has.
 */
export function blobRoutes(context: ServiceContext) {
  return async (app: FastifyInstance) => {
    // Blob bytes are streamed, never buffered: the parser hands over the raw request.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/octet-stream', (_request, payload, done) => done(null, payload));
    const guard = { onRequest: requireProject(context) };

    app.head(`${BLOBS_ROUTE}/:sha`, guard, async (request, reply) => {
      const sha = shaParam(request);
      const size = await context.storage.blobSize(projectOf(request).id, sha);
      if (size === undefined) throw blobNotFound(sha);
      return reply.code(200).header('content-length', String(size)).header('etag', `"${sha}"`).send();
    });

    app.get(`${BLOBS_ROUTE}/:sha`, guard, async (request, reply) => {
      const sha = shaParam(request);
      requireRole(request.tracerToken!, 'read', 'Fetching transcript bytes');
      const blob = await context.storage.readBlob(projectOf(request).id, sha);
      if (!blob) throw blobNotFound(sha);
      await auditBlobRead(context, request, projectOf(request), sha);
      return reply
        .code(200)
        .type('application/octet-stream')
        .header('content-length', String(blob.size))
        .header('etag', `"${sha}"`)
        .send(blob.stream);
    });

    app.post(BLOBS_ROUTE, guard, async (request, reply) => {
      const claimed = request.headers[SHA_HEADER];
      if (typeof claimed !== 'string' || !SHA256_HEX.test(claimed)) {
        throw refuseUnread(
          request,
          reply,
          new ProblemError(400, 'invalid_sha', 'X-Content-SHA256 must be the SHA-256 of the bytes: 64 lowercase hex characters.'),
        );
      }
      const declared = Number(request.headers['content-length']);
      if (Number.isFinite(declared) && declared > context.options.blobMaxBytes)
        throw refuseUnread(request, reply, blobTooLarge(context.options.blobMaxBytes));
      const body = request.body as Readable | undefined;
      // Bytes this project forgot are not kept again (issue 31); their row is answered as forgotten too.
      if (await blobForgotten(context.storage, projectOf(request).id, claimed)) {
        refuseUnread(request, reply, blobTooLarge(0));
        return reply.code(200).send({ sha256: claimed, size: 0, forgotten: true });
      }
      try {
        // destroyOnReturn: false — a refused upload must not cut the connection before the answer is out.
        const bytes = body ? body.iterator({ destroyOnReturn: false }) : ([] as Uint8Array[]);
        // Scanned on the way into storage; a finding throws before the blob is committed.
        const source = context.gate ? context.gate.blobBytes(capped(bytes, context.options.blobMaxBytes), secretDetected) : bytes;
        const stored = await context.storage.writeBlob(projectOf(request).id, claimed, source, context.options.blobMaxBytes);
        return reply.code(stored.created ? 201 : 200).send({ sha256: claimed, size: stored.size });
      } catch (error) {
        if (error instanceof ProblemError && (error.code === 'blob_too_large' || error.code === 'secret_detected'))
          throw refuseUnread(request, reply, error);
        throw error;
      }
    });
  };
}

function secretDetected(finding: StreamFinding): never {
  throw new ProblemError(
    422,
    'secret_detected',
    `The blob still holds what looks like a secret (line ${finding.line}: ${finding.rule}); nothing was stored. The client must redact before it uploads: a current tracer push does, and tracer redact --store cleans a local store.`,
  );
}

function shaParam(request: FastifyRequest): string {
  const { sha } = request.params as { sha: string };
  if (!SHA256_HEX.test(sha))
    throw new ProblemError(400, 'invalid_sha', `"${sha.slice(0, 80)}" is not a SHA-256: use 64 lowercase hex characters.`);
  return sha;
}

function blobNotFound(sha: string): ProblemError {
  return new ProblemError(404, 'not_found', `This project holds no blob ${sha}; upload it with POST ${BLOBS_ROUTE}.`);
}

/** How long a refused upload's remaining bytes are discarded, so the client can read the answer. */
const LINGER_MS = 2000;

/**
 * Answers at once, without storing, hashing or buffering anything more. Closing the
 * socket while the client is still sending would make its kernel drop our answer
 * (TCP reset), so Node discards what still arrives (its request dump) for a short
 * while; a client still sending after that has its connection cut.
 */
function refuseUnread(request: FastifyRequest, reply: FastifyReply, error: ProblemError): ProblemError {
  const incoming = request.raw;
  reply.raw.once('finish', () => {
    if (incoming.complete) return;
    const timer = setTimeout(() => incoming.socket?.destroy(), LINGER_MS);
    timer.unref();
    incoming.once('end', () => clearTimeout(timer));
    incoming.resume();
  });
  return error;
}
