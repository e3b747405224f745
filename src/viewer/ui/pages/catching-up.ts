// The team view's "catching up" notice. After a bulk push the service answers
// the project page at once from the rows it has folded in so far instead of
// making it wait (src/server/team/refresher.ts); this says so, asks
// GET <api>/progress again every second, and once the fold is done goes away
// and lets the page read its lists again.
import type { CatchUpProgress } from '../../data-source.js';
import { api, h, replace } from '../dom.js';

const POLL_MS = 1_000;

export function catchingUpNotice(apiBase: string, caughtUp: () => void): HTMLElement {
  const notice = h('p', { class: 'notice catching-up', id: 'catching-up', role: 'status', hidden: true });
  const poll = (): void => {
    api<CatchUpProgress>(`${apiBase}/progress`).then(
      (progress) => {
        if (!progress.catching_up) {
          if (!notice.hidden) {
            notice.hidden = true;
            caughtUp();
          }
          return;
        }
        replace(notice, `Catching up: ${progress.folded} of ${progress.total} rows folded in`);
        notice.hidden = false;
        setTimeout(poll, POLL_MS);
      },
      // Signed out meanwhile, or the service went away: the lists say what is wrong; the notice only goes.
      () => {
        notice.hidden = true;
      },
    );
  };
  poll();
  return notice;
}
