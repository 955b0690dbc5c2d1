import type { FastifyRequest } from 'fastify';
import { pathOf } from '../server/url-path.js';
import type { VariantResolver } from '../variants/variant-runtime.js';
import { workspaceLanguages } from './texts/workspace-languages.js';

/** One entry of the language switch: the same page in a variant's language. */
export interface LanguageLink {
  /** The `lang` of the variant's pages (BCP 47, as `<html lang>` says it). */
  readonly lang: string;
  /** The language's name in that language (a reader looks for their own). */
  readonly name: string;
  readonly href: string;
  readonly current: boolean;
}

/**
 * The same page (path after the base, and query) in each language the deployment serves to this
 * browser: a variant under another base on this host by path, a variant of another host by its
 * base URL. One entry per language; empty when there is only one.
 */
export function languageLinks(resolver: VariantResolver, request: FastifyRequest): LanguageLink[] {
  const path = pathOf(request.url);
  const { variant: current, rest: after } = resolver.forPath(path, request.host);
  // A base's own page, with or without its slash: the other base as it is written. A login waiting
  // for its code is this variant's alone (its cookie is): the other language starts at its login.
  const waiting = after === '/login/code';
  const rest = after === '/' ? '' : waiting ? '/login' : after;
  const query = waiting ? '' : request.url.slice(path.length);
  const links: LanguageLink[] = [];
  for (const variant of resolver.variants) {
    const { lang, prefix, host, baseUrl } = variant.config;
    const texts = workspaceLanguages[lang];
    if (links.some((link) => link.lang === texts.lang)) continue;
    const here = `${prefix}${rest}` || '/';
    let href: string | undefined;
    if (variant === current) href = request.url;
    else if (resolver.forPrefix(prefix, request.host) === variant) href = `${here}${query}`;
    else if (host !== undefined && /^https?:\/\//.test(baseUrl)) href = `${new URL(baseUrl).origin}${here}${query}`;
    if (href === undefined) continue;
    links.push({ lang: texts.lang, name: texts.site.languageName, href, current: variant === current });
  }
  return links.length > 1 ? links : [];
}
