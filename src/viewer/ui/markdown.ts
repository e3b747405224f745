// Transcript markdown, safely: raw HTML is escaped (`html: false`), and
// markdown-it's link check refuses javascript:, vbscript:, file: and data:
// URLs. Images from elsewhere are blocked by the CSP, so nothing is fetched
// from another machine.
import MarkdownIt from 'markdown-it';

const md = new MarkdownIt({ html: false, linkify: false, typographer: false, breaks: false });

const defaultLink = md.renderer.rules.link_open ?? ((tokens, index, options, _env, self) => self.renderToken(tokens, index, options));
md.renderer.rules.link_open = (tokens, index, options, env, self) => {
  tokens[index]!.attrSet('rel', 'noreferrer noopener');
  return defaultLink(tokens, index, options, env, self);
};

export function markdown(text: string): HTMLElement {
  const container = document.createElement('div');
  container.className = 'md';
  container.innerHTML = md.render(text);
  return container;
}
