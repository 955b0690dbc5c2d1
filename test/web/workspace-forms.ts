import type { FastifyInstance } from 'fastify';

/** A browser's cookie jar, reduced: what the app set, sent back. */
export type Jar = Record<string, string>;

export function keep(jar: Jar, response: { cookies: { name: string; value: string }[] }): Jar {
  for (const cookie of response.cookies) {
    if (cookie.value === '') delete jar[cookie.name];
    else jar[cookie.name] = cookie.value;
  }
  return jar;
}

/** The CSRF token of the (first) form of a page. */
export const tokenIn = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** Opens the login form and posts it, as a browser would (its own CSRF cookie and token). */
export async function logIn(
  app: FastifyInstance,
  base: string,
  username: string,
  password: string,
  jar: Jar = {},
  remoteAddress?: string,
) {
  const address = remoteAddress === undefined ? {} : { remoteAddress };
  const form = await app.inject({ url: `${base}/login`, cookies: jar, ...address });
  keep(jar, form);
  const response = await app.inject({
    method: 'POST',
    url: `${base}/login`,
    cookies: jar,
    payload: { _csrf: tokenIn(form.body), username, password },
    ...address,
  });
  keep(jar, response);
  return { response, jar };
}
