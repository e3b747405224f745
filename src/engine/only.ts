// `push --only`: the families it may name (those that follow no other), checked
// before anything is read. Kept apart from the push engine so that help texts can
// list the choices without loading it.
import { ExitCode, TracerError } from '../core/errors.js';
import type { Kernel } from '../kernel/kernel.js';

/** Families `--only` may name: those that follow no other family. */
export function onlyChoices(kernel: Kernel): string[] {
  return kernel.families.filter((family) => family.follows === undefined).map((family) => family.name);
}

export function checkOnly(kernel: Kernel, only: string | undefined): void {
  if (only === undefined) return;
  const choices = onlyChoices(kernel);
  if (!choices.includes(only)) {
    throw new TracerError(
      'invalid_only',
      `--only takes one of ${choices.join(', ')}, not "${only}"; the families that follow them (e.g. conversations) go along.`,
      { exitCode: ExitCode.usage },
    );
  }
}
