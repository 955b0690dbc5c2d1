import type { TSchema } from '@sinclair/typebox';
import { ACTIVITY_DEFAULTS } from '../activity/activity-config.js';
import { marketbobEndpoints } from '../api/marketbob/marketbob-endpoints.js';
import { contractEndpoints } from '../api/routes/index.js';
import { type Lang, languages } from '../variants/languages.js';
import { marketbobMessages } from '../variants/marketbob-texts.js';
import {
  MarketbobAccount,
  MarketbobAudioMedia,
  MarketbobImageMedia,
  MarketbobItem,
  MarketbobPurchase,
  MarketbobVideoMedia,
} from './marketbob-schemas.js';
import {
  Account,
  Activation,
  ActivationCounts,
  ActiveCode,
  AudioMedia,
  ImageMedia,
  Item,
  Purchase,
  PurchaseActivity,
  VideoMedia,
} from './resource-schemas.js';
import { WEBHOOK_BODY_TYPES, webhookEventSchemas } from './webhook-schemas.js';

/**
 * Writes the resource schemas as TypeScript declarations, for the SDK (sdk/src/contract.ts):
 * the client ships its own types with no runtime dependency, yet no shape is written twice.
 */

/**
 * The schemas declared by name, in the order the file lists them; others are written inline. They
 * are the named schemas the endpoints answer with (checked against the endpoints' list when the
 * file is written: see answeredTitles), in an order that declares a part before what holds it.
 */
const NAMED: readonly TSchema[] = [
  Account,
  ImageMedia,
  VideoMedia,
  AudioMedia,
  Item,
  Purchase,
  PurchaseActivity,
  ActiveCode,
  Activation,
  ActivationCounts,
  MarketbobAccount,
  MarketbobImageMedia,
  MarketbobVideoMedia,
  MarketbobAudioMedia,
  MarketbobItem,
  MarketbobPurchase,
];

const quote = (text: string) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

function typeOf(schema: TSchema, indent: string): string {
  const title = schema.title as string | undefined;
  if (title && NAMED.some((named) => named.title === title)) return title;
  if (schema.const !== undefined) return quote(String(schema.const));
  if (Array.isArray(schema.enum)) return (schema.enum as string[]).map(quote).join(' | ');
  if (Array.isArray(schema.anyOf))
    return (schema.anyOf as TSchema[]).map((branch) => typeOf(branch, indent)).join(' | ');
  // Any JSON value (MarketBob's stored JSON, passed on as it is).
  if (schema.type === undefined) return 'unknown';
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const items = typeOf(schema.items as TSchema, indent);
      return items.includes(' | ') && !items.startsWith('{') ? `(${items})[]` : `${items}[]`;
    }
    case 'object':
      return objectType(schema, indent);
    default:
      throw new Error(`typescript-source: no TypeScript for schema ${JSON.stringify(schema)}`);
  }
}

function objectType(schema: TSchema, indent: string): string {
  const properties = schema.properties as Record<string, TSchema> | undefined;
  if (!properties || Object.keys(properties).length === 0) {
    const values = Object.values((schema.patternProperties ?? {}) as Record<string, TSchema>)[0];
    return `Record<string, ${values ? typeOf(values, indent) : 'never'}>`;
  }
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const inner = `${indent}  `;
  const lines = Object.entries(properties).map(([name, property]) => {
    const doc = property.description ? `${inner}/** ${property.description} */\n` : '';
    return `${doc}${inner}${name}${required.has(name) ? '' : '?'}: ${typeOf(property, inner)};`;
  });
  return `{\n${lines.join('\n')}\n${indent}}`;
}

/** The 404 messages the client reads as "none" rather than as an error, in every language. */
function messagesOf(kind: 'noItems' | 'itemNotFound' | 'invalidPurchaseCode' | 'activationNotFound'): string {
  return `[${Object.values(languages)
    .map((texts) => quote(texts.messages[kind]))
    .join(', ')}]`;
}

/** A MarketBob message in every language: the `marketbob` client reads those 404s as "none". */
function marketbobMessagesOf(name: 'noItemsFound' | 'itemNotFound' | 'invalidPurchaseCode'): string {
  const langs = Object.keys(languages) as Lang[];
  return `[${langs.map((lang) => quote(marketbobMessages(lang)[name])).join(', ')}]`;
}

/** A constant list of strings, one line when it fits the formatter's width (120), else one per line. */
function stringList(name: string, list: string): string {
  const line = `export const ${name}: readonly string[] = ${list};`;
  if (line.length <= 120) return line;
  const items = list.slice(1, -1).split(', ');
  return `export const ${name}: readonly string[] = [\n${items.map((item) => `  ${item},`).join('\n')}\n];`;
}

/** Where each named schema's shape is told. */
function sourceOf(title: unknown): string {
  if (title === 'PurchaseActivity' || title === 'ActiveCode') return 'purchase-code activity (docs/api.md)';
  if (title === 'Activation' || title === 'ActivationCounts') return 'activations (docs/api.md)';
  if (typeof title === 'string' && title.startsWith('Marketbob')) return "MarketBob's own API (shape 'marketbob')";
  return 'SPEC 3';
}

/** The titles of the named schemas inside `schema`, added to `found`. */
function collectTitles(schema: TSchema, found: Set<string>): void {
  if (typeof schema.title === 'string' && !schema.title.includes(' (')) found.add(schema.title);
  const parts = [
    ...Object.values((schema.properties ?? {}) as Record<string, TSchema>),
    ...Object.values((schema.patternProperties ?? {}) as Record<string, TSchema>),
    ...((schema.anyOf ?? []) as TSchema[]),
    ...(schema.items ? [schema.items as TSchema] : []),
  ];
  for (const part of parts) collectTitles(part, found);
}

/**
 * The named schemas the endpoints answer with (the contract's and MarketBob's shape), from the
 * endpoints' list: the SDK declares exactly those, so an endpoint that answers a new resource
 * cannot be left out of the client's types.
 */
function answeredTitles(): Set<string> {
  const found = new Set<string>();
  for (const endpoint of contractEndpoints({ activity: ACTIVITY_DEFAULTS })) {
    for (const member of Object.values(endpoint.contract.success)) collectTitles(member, found);
  }
  for (const endpoint of marketbobEndpoints) {
    collectTitles(endpoint.contract.success, found);
  }
  return found;
}

/** The text of sdk/src/contract.ts. */
export function sdkContractSource(): string {
  const answered = answeredTitles();
  const declared = new Set(NAMED.map((schema) => schema.title as string));
  const missing = [...answered].filter((title) => !declared.has(title));
  const unused = [...declared].filter((title) => !answered.has(title));
  if (missing.length > 0 || unused.length > 0) {
    throw new Error(
      `typescript-source: NAMED lacks ${missing.join(', ') || 'none'}; no endpoint answers ${unused.join(', ') || 'none'}`,
    );
  }
  const declarations = NAMED.map((schema) => {
    const body = objectType(schema, '');
    return `/** ${schema.title}: ${sourceOf(schema.title)}, keys in this order. */\nexport interface ${schema.title} ${body}`;
  });
  return `${[
    "// Generated from the API's schemas (src/schemas) by `npm run sdk`: do not edit.",
    ...declarations,
    "/** An item's media, by its preview type. */\nexport type ItemMedia = ImageMedia | VideoMedia | AudioMedia;",
    "/** An item's media in MarketBob's shape, by its preview type. */\nexport type MarketbobItemMedia = MarketbobImageMedia | MarketbobVideoMedia | MarketbobAudioMedia;",
    '/** Every error answer: `{ status: <error word>, msg }`. */\nexport interface ErrorBody {\n  status: string;\n  msg: string;\n}',
    ...WEBHOOK_BODY_TYPES.map((type) => {
      const schema = webhookEventSchemas[type] as TSchema;
      return `/** The body of a \`${type}\` webhook: ${schema.description}. */\nexport interface ${schema.title} ${objectType(schema, '')}`;
    }),
    `/** Any webhook body, told apart by its \`type\`. */\nexport type WebhookEvent =\n${WEBHOOK_BODY_TYPES.map((type) => `  | ${webhookEventSchemas[type]?.title}`).join('\n')};`,
    `/** "No items" in every language: items() answers [] for it. */\nexport const NO_ITEMS_MESSAGES: readonly string[] = ${messagesOf('noItems')};`,
    `/** "Item not found" in every language: item() answers null for it. */\nexport const ITEM_NOT_FOUND_MESSAGES: readonly string[] = ${messagesOf('itemNotFound')};`,
    `/** "Invalid purchase code" in every language: validatePurchase() and purchaseActivity() answer null for it. */\nexport const INVALID_PURCHASE_CODE_MESSAGES: readonly string[] = ${messagesOf('invalidPurchaseCode')};`,
    `/** "Activation not found" in every language: deactivate() answers null for it. */\n${stringList('ACTIVATION_NOT_FOUND_MESSAGES', messagesOf('activationNotFound'))}`,
    `/** MarketBob's "No items found" in every language: a \`marketbob\` client's items() answers [] for it. */\n${stringList('MARKETBOB_NO_ITEMS_MESSAGES', marketbobMessagesOf('noItemsFound'))}`,
    `/** MarketBob's "Item Not Found" in every language: a \`marketbob\` client's item() answers null for it. */\n${stringList('MARKETBOB_ITEM_NOT_FOUND_MESSAGES', marketbobMessagesOf('itemNotFound'))}`,
    `/** MarketBob's "Invalid purchase code" in every language: a \`marketbob\` client's validatePurchase() answers null for it. */\n${stringList('MARKETBOB_INVALID_PURCHASE_CODE_MESSAGES', marketbobMessagesOf('invalidPurchaseCode'))}`,
  ].join('\n\n')}\n`;
}
