// Where the viewer shows a conversation: `tracer view` serves
// `/p/<project>/sessions/<conversation>` (src/viewer/ui), under the URL it prints.

export function sessionPath(projectId: string, conversationId: string): string {
  return `/p/${encodeURIComponent(projectId)}/sessions/${encodeURIComponent(conversationId)}`;
}
