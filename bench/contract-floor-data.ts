import { hash } from 'node:crypto';
import { parse as parseQuery } from 'fast-querystring';
import { BIG_SELLER, FIFTY_SELLER } from './bench-sellers.js';
import {
  accountApiKey,
  accountLine,
  type Dataset,
  itemAccountIndex,
  itemIdAt,
  itemLine,
  purchaseCode,
  purchaseItemIndex,
  purchaseStatus,
} from './generate-data.js';
import type { BodyKind } from './request-lines.js';

/** One of the real server's answers, as the contract floor writes it again. */
export interface Answer {
  readonly status: number;
  /** Node's flat `[name, value, …]` list, names and order as the real server sent them. */
  readonly headers: (string | number)[];
  /** Where in `headers` the request id's value goes (the floor makes its own), or -1. */
  readonly requestIdAt: number;
  readonly body: Buffer;
}

/**
 * Where one distinct answer is kept: made empty while the floor reads the bench's requests,
 * filled with the real server's answer, then read by every request that gets that answer.
 */
export interface AnswerSlot {
  answer: Answer | undefined;
}

interface AccountRecord {
  readonly index: number;
  readonly active: boolean;
  details: AnswerSlot | undefined;
  list: AnswerSlot | undefined;
}

interface ItemRecord {
  readonly owner: number;
  readonly approved: boolean;
  slot: AnswerSlot | undefined;
}

/**
 * A purchase the bench asks as valid, with its answers' slots. Every other purchase of the
 * million stays a small integer (see `packed`): an object each took 50 MB more of the floor's heap.
 */
interface PurchaseRecord {
  /** The account that owns the purchase's item (the purchase is active: only those get answers). */
  readonly owner: number;
  readonly slots: Record<BodyKind, AnswerSlot>;
}

/** A purchase as a small integer: the account that owns its item, and whether it is active. */
const packed = (owner: number, active: boolean) => owner * 2 + (active ? 1 : 0);

const emptySlot = (): AnswerSlot => ({ answer: undefined });
const slotsByKind = (): Record<BodyKind, AnswerSlot> => ({
  json: emptySlot(),
  form: emptySlot(),
  multipart: emptySlot(),
});

/**
 * What the floor stores of a key: its SHA-256, as the contract's minimum finds an account by
 * (one-shot `hash`: half the time of a `createHash` object per key).
 */
export const keyDigest = (apiKey: string) => hash('sha256', apiKey, 'base64');

/**
 * What the contract floor knows of the bench store, made from the same generated data the store
 * was imported from (bench/generate-data.ts and the two added sellers): every account by its
 * key's digest, every item by id, every purchase by its code; and the slots of the answers.
 *
 * The per-request methods are the contract's minimum and no more: the key's digest and one
 * `Map` lookup of the account, one of the item or purchase, and the rules that say which answer
 * it is (SPEC 2.2). Each gives the slot of the answer; with `create`, missing slots are made
 * (while the answers are collected), else a missing slot is `undefined`.
 */
export class ContractFloorData {
  private readonly accounts = new Map<string, AccountRecord>();
  private readonly items = new Map<number, ItemRecord>();
  private readonly purchases = new Map<string, PurchaseRecord | number>();
  private readonly unauthorized = emptySlot();
  private readonly itemNotFound = emptySlot();
  private readonly invalidCode = slotsByKind();

  constructor(data: Dataset) {
    const account = (index: number, apiKey: string, active: boolean) =>
      this.accounts.set(keyDigest(apiKey), { index, active, details: undefined, list: undefined });
    for (let index = 0; index < data.accounts; index++) {
      account(index, accountApiKey(data, index), accountLine(data, index).status === 'active');
    }
    for (let index = 0; index < data.items; index++) {
      const approved = itemLine(data, index).status === 'approved';
      this.items.set(itemIdAt(index), { owner: itemAccountIndex(data, index), approved, slot: undefined });
    }
    for (const [offset, seller] of [FIFTY_SELLER, BIG_SELLER].entries()) {
      const index = data.accounts + offset;
      account(index, seller.apiKey, true);
      for (let n = 0; n < seller.items; n++) {
        this.items.set(seller.firstId + n, { owner: index, approved: true, slot: undefined });
      }
    }
    for (let index = 0; index < data.purchases; index++) {
      const owner = itemAccountIndex(data, purchaseItemIndex(data, index));
      this.purchases.set(
        purchaseCode(data, index).toLowerCase(),
        packed(owner, purchaseStatus(data, index) === 'active'),
      );
    }
  }

  get sizes() {
    return { accounts: this.accounts.size, items: this.items.size, purchases: this.purchases.size };
  }

  /** The active account that owns `apiKey`, if any. */
  private account(apiKey: string | undefined): AccountRecord | undefined {
    if (apiKey === undefined) return undefined;
    const account = this.accounts.get(keyDigest(apiKey));
    return account?.active ? account : undefined;
  }

  /** A GET under `/api/`: account details, the items list, one item; undefined for another path. */
  get(path: string, query: string, apiKey: string | undefined, create: boolean): AnswerSlot | undefined {
    switch (path) {
      case '/api/account/details': {
        const account = this.account(apiKey);
        if (!account) return this.unauthorized;
        if (create) account.details ??= emptySlot();
        return account.details;
      }
      case '/api/items/all': {
        const account = this.account(apiKey);
        if (!account) return this.unauthorized;
        if (create) account.list ??= emptySlot();
        return account.list;
      }
      case '/api/items/item': {
        const account = this.account(apiKey);
        if (!account) return this.unauthorized;
        const item = this.items.get(Number(parseQuery(query).item_id));
        if (!item?.approved || item.owner !== account.index) return this.itemNotFound;
        if (create) item.slot ??= emptySlot();
        return item.slot;
      }
      default:
        return undefined;
    }
  }

  /** A validation whose body (of `kind`) gave `code`. */
  validation(apiKey: string | undefined, kind: BodyKind, code: unknown, create: boolean): AnswerSlot | undefined {
    const account = this.account(apiKey);
    if (!account) return this.unauthorized;
    // A missing code is a 400 the bench never asks for: no slot, and the floor says so.
    if (typeof code !== 'string') return undefined;
    const key = code.trim().toLowerCase();
    const purchase = this.purchases.get(key);
    if (purchase === undefined) return this.invalidCode[kind];
    if (typeof purchase !== 'number')
      return purchase.owner === account.index ? purchase.slots[kind] : this.invalidCode[kind];
    if (purchase !== packed(account.index, true)) return this.invalidCode[kind];
    if (!create) return undefined;
    const record: PurchaseRecord = { owner: account.index, slots: slotsByKind() };
    this.purchases.set(key, record);
    return record.slots[kind];
  }
}
