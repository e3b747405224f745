// The sizes both sides agree on (wire contract "Upload, per family", "Pull, per
// family", "Blobs"): the client batches and pages within them, the service
// enforces them.

/** Items per upload request; more → 413 too_many_items. */
export const ITEMS_PER_REQUEST = 500;
/** The service's default cap on a request body (413 body_too_large). */
export const SERVICE_BODY_MAX_BYTES = 32 * 1024 * 1024;
/** What the client puts in one request: far below the service's cap, so a lowered cap or a proxy's still lets batches through. */
export const CLIENT_BYTES_PER_REQUEST = 8 * 1024 * 1024;
/** Records per page when `limit` is not given, and what the client asks for. */
export const PAGE_SIZE = 500;
/** The most a page holds: a larger `limit` is capped without error. */
export const MAX_PAGE_SIZE = 1000;
/** The service's default cap on one blob (413 blob_too_large). */
export const BLOB_MAX_BYTES = 10 * 1024 * 1024;
