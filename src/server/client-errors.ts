// Requests that never reach a route: HTTP that Node's parser refuses (a body cut
// short of its Content-Length, conflicting lengths, a NUL in a header, headers over
// the size limit) and URLs the router cannot decode. Fastify answers those with its
// own JSON shape, and at trace level logs the raw bytes received, Authorization
// header included. These handlers answer problem+json like every other error and
// log only the error's code.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError, PROBLEM_CONTENT_TYPE, problemBody, sendProblem } from './problem.js';

export function problemForClientError(error: NodeJS.ErrnoException): ProblemError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ProblemError(
        431,
        'headers_too_large',
        'The request line and headers are larger than this service accepts; send a shorter URL and fewer or smaller headers.',
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ProblemError(408, 'request_timeout', 'The request did not arrive in time; send it again.');
    default:
      return new ProblemError(
        400,
        'invalid_request',
        'The request is not well-formed HTTP (for example a body shorter or longer than its Content-Length, or a malformed header); fix the client and send it again.',
      );
  }
}

/** Fastify's `clientErrorHandler`: answers on the raw socket, then closes it. */
export function clientErrorHandler(log: () => FastifyBaseLogger) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    // A reset or an already closed socket has nobody left to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const problem = problemForClientError(error);
    const requestId = randomUUID();
    log().debug({ reqId: requestId, code: error.code ?? 'unknown' }, 'client error');
    const answer = () => {
      if (socket.writable) {
        const body = JSON.stringify(problemBody(problem.status, problem.code, problem.message, requestId));
        socket.write(
          `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? 'Error'}\r\n` +
            `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
            `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
        );
      }
      socket.destroy();
    };
    // An earlier pipelined request, read in full, may still be answering on this socket:
    // our answer goes after its own, never into the middle of it. A request whose own
    // body broke (cut short of its Content-Length) is answered at once.
    const pending = (socket as Socket & { _httpMessage?: (ServerResponse & { req?: { complete: boolean } }) | null })._httpMessage;
    if (pending && !pending.writableFinished && pending.req?.complete) {
      pending.once('finish', answer);
      pending.once('close', () => socket.destroy());
    } else {
      answer();
    }
  };
}

/** Fastify's `frameworkErrors`: a URL the router cannot decode (or, unreachable with our limits, a path parameter too long). */
export function frameworkErrorHandler(error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.header('x-request-id', request.id);
  const why = error.code === 'FST_ERR_BAD_URL' ? 'a percent-encoded sequence in it does not decode' : 'a path segment is too long';
  return sendProblem(request, reply, invalidUrl(why));
}

/**
 * The router decodes the path only; the query's parser leaves a bad escape as it is, which would then be
 * judged as a cursor, a limit or nothing at all. Checked for every request, so a bad URL is one answer.
 */
export function checkQuery(url: string): void {
  const at = url.indexOf('?');
  if (at === -1) return;
  try {
    decodeURIComponent(url.slice(at + 1));
  } catch {
    throw invalidUrl('a percent-encoded sequence in its query does not decode');
  }
}

function invalidUrl(why: string): ProblemError {
  return new ProblemError(400, 'invalid_request', `The URL is not valid: ${why}; fix the client and send it again.`);
}
