import { maskToken } from '../../store/credentials.js';
import type { Setting } from '../../store/settings.js';

/** How a setting's value is shown: secrets masked, lists and booleans as JSON. */
export function displayValue(setting: Setting, value: unknown): string {
  if (value === undefined) return '';
  if (setting.secret) return typeof value === 'string' ? maskToken(value) : '****';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
