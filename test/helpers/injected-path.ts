/**
 * The path the server sees for a URL given to `app.inject`: light-my-request parses it as WHATWG
 * URL does, so dot segments are already resolved (`/.` arrives as `/`, `/pt/.` as `/pt/`), and a
 * URL that starts with `//` is a path on its own host, not another host.
 */
export function injectedPath(url: string): string {
  const base = 'http://localhost';
  return new URL(url.startsWith('//') ? `${base}${url}` : url, base).pathname;
}
