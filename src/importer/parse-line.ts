import { ACCOUNTS } from '../records/account-table.js';
import { type LineReading, parseItemId } from '../records/field-reader.js';
import type { ItemExtras } from '../records/item-table.js';
import { ITEMS } from '../records/item-table.js';
import type { PurchaseExtras } from '../records/purchase-table.js';
import { PURCHASES } from '../records/purchase-table.js';
import { dropKnownNulls } from '../records/record-table.js';
import type { ItemRecord, PurchaseRecord } from '../records/rows.js';
import { type AccountEntry, isUsername, readAccountLine } from './account-line.js';
import { readItemLine } from './item-line.js';
import { readPurchaseLine } from './purchase-line.js';

/** The kinds of line an import file holds. */
export const LINE_TYPES = ['account', 'item', 'purchase'] as const;
export type LineType = (typeof LINE_TYPES)[number];

/** One non-blank line, read. */
export type ParsedLine =
  | { readonly kind: 'account'; readonly entry: AccountEntry }
  | { readonly kind: 'item'; readonly record: ItemRecord; readonly extras: ItemExtras }
  | { readonly kind: 'purchase'; readonly record: PurchaseRecord; readonly extras: PurchaseExtras }
  | {
      readonly kind: 'bad';
      readonly message: string;
      /**
       * The account or item a rejected line was about, when its key could be read, so that later
       * lines naming it are not reported as well: one mistake, one message.
       */
      readonly declares?: { readonly username: string } | { readonly itemId: number };
    };

const TYPE_LIST = LINE_TYPES.map((type) => JSON.stringify(type)).join(', ');

/** Parses and validates one non-blank NDJSON line; the message of a bad line never repeats a value. */
export function parseLine(text: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The parser's own message quotes the line, which may hold a key: say no more than this.
    // `npm run cli -- export > FILE` (without -s) puts npm's banner, "> marketplace-api@…", on top.
    if (text.startsWith('> ')) {
      return { kind: 'bad', message: "not valid JSON (npm's banner? export with npm run -s cli -- export > FILE)" };
    }
    return { kind: 'bad', message: 'not valid JSON' };
  }
  if (typeof value !== 'object' || value === null || value === undefined || Array.isArray(value)) {
    return { kind: 'bad', message: 'must be a JSON object' };
  }
  const type = (value as { type?: unknown }).type;
  // A field given as null is a field with no value: left out, so it takes its default (or is
  // missing). Only where the line's schema knows the field: a null under an unknown name is still
  // an unknown field. The walk costs time: only lines that hold a null pay for it.
  const table = type === 'account' ? ACCOUNTS : type === 'item' ? ITEMS : type === 'purchase' ? PURCHASES : undefined;
  if (table !== undefined && text.includes('null')) dropKnownNulls(value as Record<string, unknown>, table.lineSchema);
  switch (type) {
    case 'account': {
      const read = readAccountLine(value);
      if (read.ok) return { kind: 'account', entry: read.value };
      const username = (value as { username?: unknown }).username;
      return bad('account', read, typeof username === 'string' && isUsername(username) ? { username } : undefined);
    }
    case 'item': {
      const read = readItemLine(value);
      if (read.ok) return { kind: 'item', record: read.value.record, extras: read.value.extras };
      const itemId = parseItemId((value as { id?: unknown }).id);
      return bad('item', read, itemId === undefined ? undefined : { itemId });
    }
    case 'purchase': {
      const read = readPurchaseLine(value);
      return read.ok
        ? { kind: 'purchase', record: read.value.record, extras: read.value.extras }
        : bad('purchase', read, undefined);
    }
    case undefined:
    case null:
      return { kind: 'bad', message: `type is required: one of ${TYPE_LIST}` };
    default:
      return { kind: 'bad', message: `type must be one of ${TYPE_LIST}` };
  }
}

function bad(
  type: LineType,
  read: LineReading<unknown> & { ok: false },
  declares: { username: string } | { itemId: number } | undefined,
): ParsedLine {
  const message = `${type}: ${read.problems.join('; ')}`;
  return declares === undefined ? { kind: 'bad', message } : { kind: 'bad', message, declares };
}
