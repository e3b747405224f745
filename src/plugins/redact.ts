// Redaction's built-in layers (issue 29): what capture, push, `tracer redact`
// and the service's gate detect, and the push's redaction of data captured before
// redaction existed. Switched off (`!redact` in a plugin list), nothing is
// redacted by tracer itself; an organization's plugin may then bring its own
// detectors, or add to these through the same hook.
import { builtinDetectors, outgoingRedaction, redactionHooks, type TracerPlugin } from '../plugin/redact.js';

const redactPlugin: TracerPlugin = {
  name: 'redact',
  apply(kernel) {
    redactionHooks(kernel).detectors.tapPromise('redact', async (detectors, scope) => {
      detectors.add(...(await builtinDetectors(scope)));
    });
    kernel.hooks.beforeFamily.tap('redact', (plan, session) => {
      if (plan.family.text) plan.rewrites = [...(plan.rewrites ?? []), outgoingRedaction(kernel, session, plan.family)];
      return plan;
    });
  },
};

export default redactPlugin;
