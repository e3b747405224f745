// Personal data, opt-in (`tracer config set redact.pii true`): e-mail addresses
// and phone numbers. Off by default: commits, logs and package manifests are full
// of maintainers' addresses that a team usually wants to keep readable.
import type { DetectedSecret, RedactionDetector } from '../types.js';

const EMAIL =
  /(?<![A-Za-z0-9._%+-])(?<!\/\/[^\s/@]{0,64})(?<local>[A-Za-z0-9._%+-]{1,64})@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.[A-Za-z]{2,24}(?![A-Za-z0-9-])/dg;
/** E.164 (`+4915112345678`), international with separators (`+44 20 7946 0958`), North American (`(415) 555-0134`). */
const PHONE = /(?<![\w.+/-])(?:\+[1-9]\d{7,14}|\+[1-9]\d{0,2}(?:[ .-]\(?\d{1,4}\)?){2,5}|\(?\d{3}\)?[ .-]\d{3}[ .-]\d{4})(?![\w.-]*\d)/g;

export function piiDetectors(): RedactionDetector[] {
  return [
    {
      id: 'email-address',
      source: 'built-in (redact.pii)',
      description: 'E-mail address',
      trigger: /@/,
      reach: 320,
      detect(text) {
        const found: DetectedSecret[] = [];
        for (const match of text.matchAll(EMAIL)) {
          // `git@github.com:org/repo` is an SSH address, not a person's (and `https://user@host` a URL's user).
          if (match.groups!.local === 'git') continue;
          found.push({ start: match.index!, end: match.index! + match[0].length, rule: 'email-address' });
        }
        return found;
      },
    },
    {
      id: 'phone-number',
      source: 'built-in (redact.pii)',
      description: 'Phone number (E.164, international or North American notation)',
      trigger: /\+[1-9]\d|\d{3}\)?[ .-]\d{3}[ .-]\d{4}/,
      reach: 64,
      detect(text) {
        const found: DetectedSecret[] = [];
        for (const match of text.matchAll(PHONE)) {
          const digits = match[0].replace(/\D/g, '').length;
          if (digits < 8 || digits > 15) continue;
          found.push({ start: match.index!, end: match.index! + match[0].length, rule: 'phone-number' });
        }
        return found;
      },
    },
  ];
}
