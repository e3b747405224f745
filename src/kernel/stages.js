/**
 * Tap stages shared by plugins: a native implementation answers a bail hook at
 * `native`; a compatibility fallback taps the same hook at `fallback`, so it only
 * answers when every native tap declined (cf. webpack's Cache stages).
 */
export const STAGE = { native: 0, fallback: 100 };
