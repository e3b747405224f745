// The HTTP protocol as a public entry, `tracer/protocol`: what a plugin that
// speaks the wire needs (the transport the `http` plugin opens, the routes and
// limits of docs/protocol.md). The rest of src/protocol/ is its implementation.
export { createHttpTransport } from './http-transport.js';
export { API_PREFIX, BLOBS_ROUTE, WHOAMI_ROUTE, apiRoot, blobRoute, syncRoute } from './routes.js';
export { CLIENT_BYTES_PER_REQUEST, ITEMS_PER_REQUEST, MAX_PAGE_SIZE, PAGE_SIZE, SERVICE_BODY_MAX_BYTES } from './limits.js';
