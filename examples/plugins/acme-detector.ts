// An organization's own secret detector, added to tracer's redaction through
// the same hook as the built-in layers. Acme's deploy keys look like
// `ACMEDK-` and 40 hex digits; tracer's built-in rules do not know them, so this
// plugin does. Capture redacts them from transcripts and summaries, a push from
// data captured before, `tracer redact check` finds them, and a service started
// with `--plugins` refuses an upload that still holds one.
//
// Once compiled (`npx tsc -p examples/plugins`), list it in $TRACER_HOME/plugins.json
// (every project of this user), with `tracer config set plugins <path>` (one
// project), and for the service with `tracer serve --plugins <path>`.
// It imports `tracer/plugin/redact`, the light entry the capture hooks load:
// tracer must be resolvable from the plugin's folder (installed beside it).
// A guide to writing one: docs/plugins.md, "A redaction detector".
import { redactionHooks, type DetectedSecret, type RedactionDetector, type TracerPlugin } from 'tracer/plugin/redact';

const DEPLOY_KEY = /(?<![A-Za-z0-9])ACMEDK-[0-9a-f]{40}(?![0-9a-f])/g;

const acmeDeployKeys: RedactionDetector = {
  id: 'acme-deploy-keys',
  source: 'acme-detector plugin',
  rules: [{ id: 'acme-deploy-key', description: 'Acme deploy key (ACMEDK- and 40 hex digits)' }],
  // Text without this is never given to detect(): most of a transcript holds no key.
  trigger: /ACMEDK-/,
  detect(text) {
    const found: DetectedSecret[] = [];
    for (const match of text.matchAll(DEPLOY_KEY))
      found.push({ start: match.index, end: match.index + match[0].length, rule: 'acme-deploy-key' });
    return found;
  },
};

const acmeDetector: TracerPlugin = {
  name: 'acme-detector',
  apply(kernel) {
    // Every redaction scope (capture, push, check, the service) gets the detector.
    redactionHooks(kernel).detectors.tap('acme-detector', (detectors) => detectors.add(acmeDeployKeys));
  },
};

export default acmeDetector;
