/** A request target's path: the URL as sent up to its query string. Every surface cuts it here. */
export function pathOf(url: string): string {
  const queryAt = url.indexOf('?');
  return queryAt === -1 ? url : url.slice(0, queryAt);
}
