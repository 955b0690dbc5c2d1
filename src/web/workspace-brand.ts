import { existsSync, statSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import { type Static, Type } from '@sinclair/typebox';

/** The product's own name: the brand's name when a deployment names none. */
export const PRODUCT_NAME = 'marketplace-api';
const DEFAULT_ACCENT = '#0b57d0';
const MAX_LOGO_BYTES = 512 * 1024;

/** A logo file's type, by its extension: the kinds a browser shows as an image. */
const LOGO_TYPES: Readonly<Record<string, string>> = {
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
};

/** `workspace.brand` in the config file: the marketplace's name, logo and colour on every page. */
export const BrandSchema = Type.Object(
  {
    name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 80, description: "The marketplace's name; the product's by default" }),
    ),
    logo: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        description: "An http(s) URL, or an image file's path (relative to the config file's folder) served by us",
      }),
    ),
    accent: Type.Optional(Type.String({ description: 'A CSS colour, #rgb or #rrggbb' })),
  },
  { additionalProperties: false },
);
export type BrandSettings = Static<typeof BrandSchema>;

/** The brand as the pages use it: defaults filled, a logo file's path absolute. */
export interface Brand {
  readonly name: string;
  /** `#rrggbb`. */
  readonly accent: string;
  /** Text on the accent: black or white, whichever reads better on it. */
  readonly onAccent: string;
  readonly logo?: { readonly url: string } | { readonly file: string; readonly type: string };
}

const expandHex = (colour: string) =>
  colour.length === 4 ? `#${[...colour.slice(1)].map((c) => c + c).join('')}` : colour;

/** WCAG relative luminance of `#rrggbb`. */
function luminance(hex: string): number {
  const channel = (at: number) => {
    const value = Number.parseInt(hex.slice(at, at + 2), 16) / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** White or black text on the accent, by which contrasts more. */
const textOn = (hex: string) => {
  const light = luminance(hex);
  return (1.05 / (light + 0.05) >= (light + 0.05) / 0.05 ? '#ffffff' : '#000000') as string;
};

/**
 * Checks `workspace.brand` and resolves it (problems are pushed, one line each, like the rest of the
 * config's). A logo file is read by path relative to the config file's folder (the working
 * directory without one), and must exist at start: the pages should not link to nothing.
 */
export function checkBrand(
  settings: BrandSettings | undefined,
  configPath: string | undefined,
  problems: string[],
): Brand {
  const accentText = settings?.accent?.trim();
  let accent = DEFAULT_ACCENT;
  if (accentText !== undefined) {
    if (/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(accentText)) accent = expandHex(accentText.toLowerCase());
    else problems.push(`workspace.brand.accent: must be a colour written #rgb or #rrggbb, such as #0b57d0`);
  }
  const name = settings?.name?.trim() || PRODUCT_NAME;
  const brand = { name, accent, onAccent: textOn(accent) };
  const logo = settings?.logo?.trim();
  if (!logo) return brand;
  if (/^[a-z][a-z0-9+.-]*:/i.test(logo) && !/^[a-z]:[\\/]/i.test(logo)) {
    let url: URL | undefined;
    try {
      url = new URL(logo);
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
      problems.push('workspace.brand.logo: must be an http(s) URL or the path of an image file');
      return brand;
    }
    return { ...brand, logo: { url: url.href } };
  }
  const file = resolve(configPath ? dirname(resolve(configPath)) : process.cwd(), logo);
  const type = LOGO_TYPES[extname(file).toLowerCase()];
  if (type === undefined) {
    problems.push(`workspace.brand.logo: ${logo} must be an image (${Object.keys(LOGO_TYPES).join(', ')})`);
    return brand;
  }
  if (!existsSync(file) || !statSync(file).isFile()) {
    problems.push(`workspace.brand.logo: no file at ${file}`);
    return brand;
  }
  if (statSync(file).size > MAX_LOGO_BYTES) {
    problems.push(`workspace.brand.logo: ${file} is larger than ${MAX_LOGO_BYTES / 1024} KiB`);
    return brand;
  }
  return { ...brand, logo: { file, type } };
}

/** The brand of a deployment that configured none. */
export const defaultBrand = (): Brand => checkBrand(undefined, undefined, []);

const escapeXml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** The favicon without a logo: the name's initial on the accent, made here (nothing downloaded). */
export function brandIconSvg(brand: Brand): string {
  const initial = [...brand.name.trim()][0]?.toUpperCase() ?? 'M';
  return (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
    `<title>${escapeXml(brand.name)}</title>` +
    `<rect width="32" height="32" rx="7" fill="${brand.accent}"/>` +
    `<text x="16" y="22.5" text-anchor="middle" font-family="system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif" font-size="19" font-weight="700" fill="${brand.onAccent}">${escapeXml(initial)}</text>` +
    '</svg>'
  );
}

/** Where the pages find the brand's images under a variant's base (served by the front page's plugin). */
export const brandPaths = (prefix: string) => ({
  icon: `${prefix}/brand/icon.svg`,
  logo: `${prefix}/brand/logo`,
  css: `${prefix}/brand/brand.css`,
});

/** The logo's address for a page of this base, if there is a logo. */
export const logoHref = (brand: Brand, prefix: string): string | undefined =>
  brand.logo === undefined ? undefined : 'url' in brand.logo ? brand.logo.url : brandPaths(prefix).logo;

/** The image sources a page's Content-Security-Policy allows: ours, and a logo URL's origin. */
export const imageSources = (brand: Brand): string =>
  brand.logo !== undefined && 'url' in brand.logo ? `'self' ${new URL(brand.logo.url).origin}` : "'self'";
