/** A storage path as a URL: MarketBob's base URL, `/`, the path; an http(s) URL stays as it is; '' for none. */
export function mediaUrl(base: string, path: string | null | undefined): string {
  const given = (path ?? '').trim();
  if (given === '') return '';
  if (/^https?:\/\//i.test(given)) return given;
  try {
    return new URL(given.replace(/^\/+/, ''), `${base}/`).href;
  } catch {
    return '';
  }
}
