import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { DocsLanguage } from './docs-languages.js';

/**
 * The docs page: Swagger UI over the variant's `openapi.json`, with the product's name, in the
 * variant's language, from this server alone. Swagger UI's built files come from the installed
 * @fastify/swagger-ui package (which carries swagger-ui-dist's files without swagger-ui-dist's
 * install-time telemetry dependency); the page, its start script and its styles are ours, so
 * the title, the language, the layout (no top bar, so no framework logo) and the headers are too.
 */

/** Swagger UI's files served under `{base}/docs/`, read once. */
export interface DocsAsset {
  readonly type: string;
  readonly body: Buffer | string;
}

const SWAGGER_UI_FILES: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

/** Reads Swagger UI's files from the installed package. */
export function swaggerUiAssets(): ReadonlyMap<string, DocsAsset> {
  const staticDir = join(dirname(createRequire(import.meta.url).resolve('@fastify/swagger-ui/package.json')), 'static');
  return new Map([
    ...Object.entries(SWAGGER_UI_FILES).map(([name, type]): [string, DocsAsset] => [
      name,
      { type, body: readFileSync(join(staticDir, name)) },
    ]),
  ]);
}

/**
 * The page's headers: as the workspace's (no framing, no referrer, nothing from elsewhere), with
 * what Swagger UI needs besides: its icons are `data:` images in its CSS, and "Execute" fetches
 * from this origin.
 */
export const DOCS_SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
} as const;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** The marketplace's name and favicon (src/web/workspace-brand.ts), when the page shows them. */
export interface DocsBrand {
  /** Left out when it is the product's own (already in the title). */
  readonly name: string | undefined;
  readonly icon: string;
}

/** The HTML of `{prefix}/docs`; its assets live under it. */
export function docsHtml(language: DocsLanguage, prefix: string, brand?: DocsBrand): string {
  const at = escapeHtml(`${prefix}/docs`);
  const title = brand?.name === undefined ? language.pageTitle : `${language.pageTitle} · ${brand.name}`;
  const icon = brand === undefined ? '' : `<link rel="icon" href="${escapeHtml(brand.icon)}">\n`;
  return `<!doctype html>
<html lang="${escapeHtml(language.htmlLang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
${icon}<link rel="stylesheet" href="${at}/swagger-ui.css">
<link rel="stylesheet" href="${at}/docs.css">
</head>
<body>
<div id="docs"></div>
<script src="${at}/swagger-ui-bundle.js"></script>
<script src="${at}/docs-start.js"></script>
</body>
</html>
`;
}

/**
 * Our few styles: the page's background, the title's margin without Swagger UI's top bar, and the
 * two labels Swagger UI's stylesheet writes itself (`content:`) in the page's language.
 */
export function docsCss(language: DocsLanguage): string {
  const css = (text: string) => JSON.stringify(language.uiLabels[text] ?? text);
  return `body { margin: 0; background: #fafafa; }
.swagger-ui .information-container .info { margin: 32px 0 16px; }
.swagger-ui .parameter__name.required:after { content: ${css('required')}; }
.swagger-ui .loading-container .loading:after { content: ${css('loading')}; }
`;
}

/**
 * The page's start script (a file: the CSP allows no inline script): Swagger UI over the document,
 * and, for a language other than English, Swagger UI's own labels replaced as it renders them.
 */
export function docsStartScript(documentUrl: string, language: DocsLanguage): string {
  const settings = { url: documentUrl, labels: language.uiLabels };
  return `'use strict';
(function () {
  var settings = ${JSON.stringify(settings)};
  var labels = settings.labels;
  // Swagger UI has no translations: its labels are replaced where they appear, as text or attribute.
  function translateText(node) {
    var text = node.nodeValue;
    var key = text.trim();
    if (!Object.prototype.hasOwnProperty.call(labels, key)) return;
    var translated = text.replace(key, labels[key]);
    // Only a change: writing the same text would be observed again, without end.
    if (translated !== text) node.nodeValue = translated;
  }
  function translateElement(element) {
    ['placeholder', 'title', 'aria-label'].forEach(function (name) {
      var value = element.getAttribute(name);
      if (value === null || !Object.prototype.hasOwnProperty.call(labels, value.trim())) return;
      if (labels[value.trim()] !== value) element.setAttribute(name, labels[value.trim()]);
    });
  }
  function translateTree(root) {
    if (root.nodeType === 3) return translateText(root);
    if (root.nodeType !== 1) return;
    translateElement(root);
    var walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
    while (walker.nextNode()) {
      var node = walker.currentNode;
      if (node.nodeType === 3) translateText(node);
      else translateElement(node);
    }
  }
  var root = document.getElementById('docs');
  if (Object.keys(labels).length > 0) {
    new MutationObserver(function (changes) {
      changes.forEach(function (change) {
        if (change.type === 'characterData') translateText(change.target);
        else if (change.type === 'attributes') translateElement(change.target);
        else change.addedNodes.forEach(translateTree);
      });
    }).observe(root, {
      childList: true,
      subtree: true,
      characterData: true,
      attributes: true,
      attributeFilter: ['placeholder', 'title', 'aria-label'],
    });
  }
  window.ui = SwaggerUIBundle({
    url: settings.url,
    domNode: root,
    layout: 'BaseLayout',
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    validatorUrl: null,
    supportedSubmitMethods: ['get', 'post'],
  });
})();
`;
}
