import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createVariantResolver } from '../../src/variants/variant-runtime.js';
import { packageVersion } from '../../src/version.js';
import { wantsHtml } from '../../src/web/front-page.js';
import { languageLinks } from '../../src/web/language-switch.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/** The front page at each variant's base, the brand on every page, and the JSON 404 kept for API clients. */

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  vary: 'Accept',
};
const NOT_FOUND = {
  en: { status: 'error', msg: 'Not found' },
  pt: { status: 'Erro', msg: 'Não encontrado' },
};

describe('front page', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers a browser at / in English: the names, and links to the docs, the OpenAPI document and the login', async () => {
    const page = await t.app.inject({ url: '/', headers: { accept: BROWSER } });
    expect(page.statusCode).toBe(200);
    expect(page.headers).toMatchObject(PAGE_HEADERS);
    expect(page.body).toContain('<html lang="en">');
    expect(page.body).toContain('<title>Seller API · marketplace-api</title>');
    expect(page.body).toContain(
      '<h1><span class="hero-name">marketplace-api</span> <span class="hero-title">Seller API</span></h1>',
    );
    expect(page.body).toContain('<a href="/docs">API documentation</a>');
    expect(page.body).toContain('<a href="/openapi.json">OpenAPI document</a>');
    expect(page.body).toContain('<a href="/login">Seller workspace</a>');
    expect(page.body).toContain(`marketplace-api ${packageVersion()}`);
    expect(page.body).toContain('<link rel="icon" href="/brand/icon.svg">');
    // The other language, for the same page.
    expect(page.body).toContain('<a href="/pt" lang="pt-BR" hreflang="pt-BR">Português</a>');
    expect(page.body).toContain('<a href="/" lang="en" hreflang="en" aria-current="true">English</a>');
  });

  it.each(['/pt', '/pt/'])('answers a browser at %s in Portuguese, with the variant’s links', async (url) => {
    const page = await t.app.inject({ url, headers: { accept: BROWSER } });
    expect(page.statusCode).toBe(200);
    expect(page.headers).toMatchObject(PAGE_HEADERS);
    expect(page.body).toContain('<html lang="pt-BR">');
    expect(page.body).toContain('<span class="hero-title">API do vendedor</span>');
    expect(page.body).toContain('<a href="/pt/docs">Documentação da API</a>');
    expect(page.body).toContain('<a href="/pt/openapi.json">Documento OpenAPI</a>');
    expect(page.body).toContain('<a href="/pt/login">Painel do vendedor</a>');
    expect(page.body).toContain('<a href="/" lang="en" hreflang="en">English</a>');
  });

  it.each([
    ['no Accept', {}],
    ['any type', { accept: '*/*' }],
    ['JSON', { accept: 'application/json' }],
    ['JSON before HTML', { accept: 'application/json, text/html;q=0.5' }],
    ['HTML refused', { accept: 'text/html;q=0, */*' }],
  ])('keeps the JSON 404 for a client asking %s', async (_name, headers) => {
    for (const [url, lang] of [
      ['/', 'en'],
      ['/pt', 'pt'],
      ['/pt/', 'pt'],
    ] as const) {
      const response = await t.app.inject({ url, headers });
      expect(response.statusCode, url).toBe(404);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.headers['x-error-code']).toBe('not_found');
      expect(response.headers['content-security-policy']).toBeUndefined();
      expect(response.json()).toEqual(NOT_FOUND[lang]);
    }
  });

  it('keeps the JSON 404 under /api and for other methods, even for a browser', async () => {
    for (const [url, lang] of [
      ['/api', 'en'],
      ['/api/nothing', 'en'],
      ['/pt/api', 'pt'],
      ['/pt/api/nothing', 'pt'],
      ['/nothing', 'en'],
      ['/pt/nothing', 'pt'],
    ] as const) {
      const response = await t.app.inject({ url, headers: { accept: BROWSER } });
      expect(response.statusCode, url).toBe(404);
      expect(response.json()).toEqual(NOT_FOUND[lang]);
    }
    const post = await t.app.inject({ method: 'POST', url: '/pt', headers: { accept: BROWSER } });
    expect(post.statusCode).toBe(404);
    expect(post.json()).toEqual(NOT_FOUND.pt);
  });

  it('serves the favicon made from the accent and the initial, and the accent as a stylesheet', async () => {
    const icon = await t.app.inject({ url: '/pt/brand/icon.svg' });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toBe('image/svg+xml');
    expect(icon.body).toContain('<rect width="32" height="32" rx="7" fill="#0b57d0"/>');
    expect(icon.body).toMatch(/fill="#ffffff">M<\/text><\/svg>$/);
    const css = await t.app.inject({ url: '/brand/brand.css' });
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.body).toBe(':root{--accent:#0b57d0;--on-accent:#ffffff}\n');
    expect((await t.app.inject({ url: '/brand/logo' })).statusCode).toBe(404);
  });

  it('puts the brand and the language switch on the workspace pages and the docs page', async () => {
    const login = await t.app.inject({ url: '/pt/login' });
    expect(login.body).toContain('<title>Entrar · marketplace-api</title>');
    expect(login.body).toContain('<span class="brand-name">marketplace-api</span>');
    expect(login.body).toContain('<span class="brand-sub">Painel do vendedor</span>');
    expect(login.body).toContain('<a href="/login" lang="en" hreflang="en">English</a>');
    expect(login.body).toContain('<a href="/pt/login" lang="pt-BR" hreflang="pt-BR" aria-current="true">Português</a>');
    const ended = await t.app.inject({ url: '/login?ended=1' });
    expect(ended.body).toContain('<a href="/pt/login?ended=1" lang="pt-BR" hreflang="pt-BR">Português</a>');
    const docs = await t.app.inject({ url: '/pt/docs' });
    expect(docs.body).toContain('<link rel="icon" href="/pt/brand/icon.svg">');
  });
});

describe('front page with a brand', () => {
  let t: TestApp;
  const logo = Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><rect width="8" height="8"/></svg>',
  );
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'brand-'));
    writeFileSync(join(dir, 'logo.svg'), logo);
    t = await createTestApp({
      configFile: {
        variants: [
          { lang: 'en', baseUrl: 'https://market.example.com/', currency: 'USD', rate: '1' },
          { lang: 'pt', baseUrl: 'https://market.example.com.br/', currency: 'BRL', rate: '5.00' },
        ],
        workspace: { brand: { name: 'Ébano Market', accent: '#fc0', logo: join(dir, 'logo.svg') } },
      },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers at a host variant’s root in its language, switching to the other host', async () => {
    const page = await t.app.inject({ url: '/', headers: { accept: BROWSER, host: 'market.example.com.br' } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<html lang="pt-BR">');
    expect(page.body).toContain('<title>API do vendedor · Ébano Market</title>');
    expect(page.body).toContain('Quem vende em Ébano Market chama esta API');
    expect(page.body).toContain('<img class="hero-logo" src="/brand/logo" alt="Ébano Market" width="64" height="64">');
    expect(page.body).toContain('<a href="https://market.example.com/" lang="en" hreflang="en">English</a>');
    const en = await t.app.inject({ url: '/', headers: { accept: BROWSER, host: 'market.example.com' } });
    expect(en.body).toContain('<html lang="en">');
    const json = await t.app.inject({ url: '/', headers: { host: 'market.example.com.br' } });
    expect(json.statusCode).toBe(404);
    expect(json.json()).toEqual(NOT_FOUND.pt);
  });

  it('serves the logo file, the accent with its readable text colour, and names the brand in the docs title', async () => {
    const served = await t.app.inject({ url: '/brand/logo', headers: { host: 'market.example.com' } });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/svg+xml');
    expect(served.rawPayload.equals(logo)).toBe(true);
    const css = await t.app.inject({ url: '/brand/brand.css', headers: { host: 'market.example.com' } });
    expect(css.body).toBe(':root{--accent:#ffcc00;--on-accent:#000000}\n');
    const icon = await t.app.inject({ url: '/brand/icon.svg', headers: { host: 'market.example.com' } });
    expect(icon.body).toMatch(/fill="#000000">É<\/text><\/svg>$/);
    const docs = await t.app.inject({ url: '/docs', headers: { host: 'market.example.com' } });
    expect(docs.body).toContain('<title>marketplace-api: API reference · Ébano Market</title>');
    const login = await t.app.inject({ url: '/login', headers: { host: 'market.example.com' } });
    expect(login.body).toContain('<img class="brand-logo" src="/brand/logo" alt="" width="32" height="32">');
    expect(login.body).toContain('<span>Ébano Market</span>');
    // The logo is the favicon.
    expect(login.body).toContain('<link rel="icon" href="/brand/logo">');
    expect(docs.body).toContain('<link rel="icon" href="/brand/logo">');
  });
});

describe('workspace.brand in the config', () => {
  const load = (brand: unknown) => {
    const dir = mkdtempSync(join(tmpdir(), 'brand-config-'));
    const path = join(dir, 'config.json');
    writeFileSync(path, JSON.stringify({ workspace: { brand } }));
    writeFileSync(join(dir, 'mark.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    return loadConfig({ MARKETPLACE_CONFIG: path, DATABASE_URL: `sqlite:${join(dir, 'store.db')}` });
  };
  const problemsOf = (brand: unknown) => {
    try {
      load(brand);
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
    return [];
  };

  it('defaults to the product’s name and colour, reads a logo path from the config file’s folder', () => {
    expect(loadConfig({}).workspace.brand).toEqual({ name: 'marketplace-api', accent: '#0b57d0', onAccent: '#ffffff' });
    const brand = load({ name: ' Shop ', accent: '#1A2B3C', logo: 'mark.png' }).workspace.brand;
    expect(brand).toMatchObject({ name: 'Shop', accent: '#1a2b3c', logo: { type: 'image/png' } });
    expect(brand?.logo !== undefined && 'file' in brand.logo && brand.logo.file.endsWith('/mark.png')).toBe(true);
    expect(load({ logo: 'https://cdn.example.com/logo.png' }).workspace.brand?.logo).toEqual({
      url: 'https://cdn.example.com/logo.png',
    });
  });

  it('says what is wrong with each field at once', () => {
    expect(problemsOf({ accent: 'red', logo: 'ftp://example.com/logo.png' })).toEqual([
      'workspace.brand.accent: must be a colour written #rgb or #rrggbb, such as #0b57d0',
      'workspace.brand.logo: must be an http(s) URL or the path of an image file',
    ]);
    expect(problemsOf({ logo: 'missing.svg' })).toEqual([
      expect.stringMatching(/^workspace\.brand\.logo: no file at \/.*\/missing\.svg$/),
    ]);
    expect(problemsOf({ logo: 'notes.txt' })).toEqual([
      'workspace.brand.logo: notes.txt must be an image (.svg, .png, .jpg, .jpeg, .webp, .gif)',
    ]);
  });

  it('allows a logo URL’s origin in the pages’ image policy', async () => {
    const t = await createTestApp({
      configFile: { workspace: { brand: { logo: 'https://cdn.example.com/a/logo.png' } } },
    });
    try {
      const page = await t.app.inject({ url: '/login' });
      expect(page.headers['content-security-policy']).toContain("img-src 'self' https://cdn.example.com;");
      expect(page.body).toContain('<img class="brand-logo" src="https://cdn.example.com/a/logo.png" alt=""');
    } finally {
      await t.close();
    }
  });

  it('tells a browser from an API client by Accept', () => {
    expect(wantsHtml(BROWSER)).toBe(true);
    expect(wantsHtml('text/html')).toBe(true);
    expect(wantsHtml(undefined)).toBe(false);
    expect(wantsHtml('*/*')).toBe(false);
    expect(wantsHtml('application/json;q=0.9, text/html;q=0.8')).toBe(false);
  });
});

describe('the language switch', () => {
  const { variants } = loadConfig({});
  const resolver = createVariantResolver(variants);
  const links = (url: string, host = '127.0.0.1:8080') =>
    languageLinks(resolver, { url, host } as FastifyRequest).map(({ name, href, current }) => [name, href, current]);

  it('links the same page (and query) in the other language; a login waiting for its code starts over there', () => {
    expect(links('/workspace/purchase-codes?days=7')).toEqual([
      ['English', '/workspace/purchase-codes?days=7', true],
      ['Português', '/pt/workspace/purchase-codes?days=7', false],
    ]);
    expect(links('/pt/')).toEqual([
      ['English', '/', false],
      ['Português', '/pt/', true],
    ]);
    expect(links('/pt/login/code')).toEqual([
      ['English', '/login', false],
      ['Português', '/pt/login/code', true],
    ]);
  });
});
