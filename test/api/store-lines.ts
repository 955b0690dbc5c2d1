/**
 * NDJSON lines for tests that build a small store of their own (the cache tests): an account, an
 * item and a purchase with every field the importer requires, and whatever a case changes.
 */

export const accountLine = (username: string, apiKey: string, fields: object = {}) => ({
  type: 'account',
  username,
  email: `${username}@example.com`,
  api_key: apiKey,
  registered_at: '2024-01-01T00:00:00Z',
  ...fields,
});

export const itemLine = (id: number, account: string, fields: object = {}) => ({
  type: 'item',
  id,
  account,
  name: `Item ${id}`,
  version: '1.0.0',
  preview_type: 'image',
  thumbnail: 'https://cdn.example.com/t.png',
  preview_image: 'https://cdn.example.com/p.png',
  price: { regular: '10.00', extended: '20.00' },
  status: 'approved',
  published_at: '2024-01-02T00:00:00Z',
  ...fields,
});

export const purchaseLine = (code: string, itemId: number, fields: object = {}) => ({
  type: 'purchase',
  code,
  item_id: itemId,
  license_type: 'regular',
  price: '10.00',
  date: '2024-01-03T00:00:00Z',
  ...fields,
});
