import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  accountApiKey,
  accountUsername,
  dataset,
  datasetLines,
  FULL_DATASET,
  itemAccountIndex,
  itemIdAt,
  purchaseCode,
  purchaseItemIndex,
  writeDataset,
} from '../../bench/generate-data.js';
import { digestApiKey } from '../../src/keys/api-keys.js';
import { TEST_STORES } from '../helpers/test-database.js';
import { counts, keys, type TempStore, tempStores } from './import-fixtures.js';

describe('the benchmark data set', () => {
  it('has the full shape by default', () => {
    expect(FULL_DATASET).toEqual({ accounts: 10_000, items: 100_000, purchases: 1_000_000, seed: 1 });
  });

  it('is the same for the same seed, and differs for another', () => {
    const lines = [...datasetLines(dataset({ purchases: 300 }))];
    expect([...datasetLines(dataset({ purchases: 300 }))]).toEqual(lines);
    expect([...datasetLines(dataset({ purchases: 300, seed: 2 }))]).not.toEqual(lines);
  });
});

describe.each(TEST_STORES)('the benchmark data set (%s)', (kind) => {
  const newTempStore = tempStores(kind);
  let temp: TempStore;
  beforeEach(async () => {
    temp = await newTempStore();
  });
  afterEach(async () => {
    await temp.close();
  });

  it('imports cleanly, and its helpers point at what it holds', async () => {
    const data = dataset({ purchases: 2000 });
    let text = '';
    const out = new Writable({
      write(chunk, _encoding, done) {
        text += String(chunk);
        done();
      },
    });
    const written = await writeDataset(data, out);
    expect(written.lines).toBe(20 + 200 + 2000);
    expect(written.bytes).toBe(Buffer.byteLength(text));
    const result = await temp.importLines(text.trimEnd().split('\n'));
    expect(result).toEqual({
      ok: true,
      counts: { account: counts(20, 0, 0), item: counts(200, 0, 0), purchase: counts(2000, 0, 0) },
    });

    const purchase = await temp.store.purchase(purchaseCode(data, 1234).toLowerCase());
    expect(purchase?.item_id).toBe(itemIdAt(purchaseItemIndex(data, 1234)));
    const item = await temp.store.item(purchase?.item_id ?? 0);
    const owner = itemAccountIndex(data, purchaseItemIndex(data, 1234));
    expect(item?.account).toBe(accountUsername(owner));
    const account = await temp.store.accountByKeyDigest(digestApiKey(keys, accountApiKey(data, owner)));
    expect(account?.username).toBe(accountUsername(owner));
  });
});
