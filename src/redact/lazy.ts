// The way into redaction's modules from code that runs often: the capture hook,
// a push, every command's plugin boot. They are imported on first need, by a URL
// the hook and push bundles (scripts/build-hook-bundles.mjs) leave alone, so a
// tool use, a no-op push or a command without text to redact neither loads nor
// parses them. This file sits one folder below dist/, as the bundles do, so the
// same relative URL reaches dist/redact/ from here and from a bundle.
import type * as Builtin from './builtin.js';
import type * as Capture from './capture.js';
import type * as Outgoing from './outgoing.js';

/** Under tsx (tests) the modules are .ts sources; in the package, compiled .js. */
const EXTENSION = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

function load<T>(name: string): Promise<T> {
  return import(new URL(`../redact/${name}${EXTENSION}`, import.meta.url).href) as Promise<T>;
}

export const loadBuiltinLayers = () => load<typeof Builtin>('builtin');
export const loadCaptureRedaction = () => load<typeof Capture>('capture');
export const loadOutgoingRedaction = () => load<typeof Outgoing>('outgoing');
