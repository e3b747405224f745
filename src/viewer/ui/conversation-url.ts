/** `claude-code://session/<id>` → the conversation id (URI-encoded in the url), as the server's ledger reader does. */
export function parseConversationUrl(url: string | null): { agent: string; conversationId: string } | undefined {
  const match = url === null ? null : /^([a-z][a-z0-9+.-]*):\/\/[^/]+\/(.+)$/i.exec(url);
  if (!match) return undefined;
  try {
    return { agent: match[1]!, conversationId: decodeURIComponent(match[2]!) };
  } catch {
    return undefined;
  }
}
