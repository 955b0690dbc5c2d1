import { describe, expect, it } from 'vitest';
import { type MarketbobOperation, marketbobResponseSchemas } from '../../src/schemas/marketbob-schemas.js';
import { marketbobMessages } from '../../src/variants/marketbob-texts.js';
import { MARKETBOB_BODIES, MARKETBOB_PURCHASE, MARKETBOB_RESOURCES } from '../helpers/marketbob-bodies.js';
import { marketbobAnswerProblems, marketbobContractOf } from '../helpers/marketbob-contract.js';

type Json = Record<string, unknown>;

const problems = (operation: MarketbobOperation, status: number, body: unknown, lang: 'en' | 'pt' = 'en') =>
  marketbobAnswerProblems(operation, lang, status, typeof body === 'string' ? body : JSON.stringify(body));

const parsed = (text: string) => JSON.parse(text) as Json;
const { imageItem, audioItem, videoItem } = MARKETBOB_RESOURCES;

describe("MarketBob's shape: the schemas accept MarketBob's own bodies", () => {
  it('accepts the four success bodies, with NULLs, floats, raw tags and keyed screenshots', () => {
    expect(problems('accountDetails', 200, MARKETBOB_BODIES.accountDetails)).toEqual([]);
    expect(problems('itemsAll', 200, MARKETBOB_BODIES.itemsAll)).toEqual([]);
    expect(problems('itemsItem', 200, MARKETBOB_BODIES.itemsItem)).toEqual([]);
    expect(problems('itemsItem', 200, { status: 'success', item: videoItem })).toEqual([]);
    expect(problems('purchaseValidation', 200, MARKETBOB_BODIES.purchaseValidation)).toEqual([]);
    expect(problems('purchaseValidation', 200, MARKETBOB_BODIES.purchaseValidationUnsupported)).toEqual([]);
  });

  it.each([
    ['en', 'accountDetails', 400, 'The api key field is required.'],
    ['en', 'accountDetails', 401, 'Invalid request'],
    ['en', 'itemsAll', 400, 'The api key field is required.'],
    ['en', 'itemsAll', 404, 'No items found'],
    ['en', 'itemsItem', 400, 'The item id field is required.'],
    ['en', 'itemsItem', 400, 'The item id field must be an integer.'],
    ['en', 'itemsItem', 404, 'Item Not Found'],
    ['en', 'purchaseValidation', 400, 'The purchase code field is required.'],
    ['en', 'purchaseValidation', 404, 'Invalid purchase code'],
    ['pt', 'accountDetails', 400, 'O campo api key é obrigatório.'],
    ['pt', 'accountDetails', 401, 'Requisição inválida'],
    ['pt', 'itemsAll', 404, 'Nenhum item encontrado'],
    ['pt', 'itemsItem', 400, 'O campo item id é obrigatório.'],
    ['pt', 'itemsItem', 400, 'O campo item id deve ser um número inteiro.'],
    ['pt', 'itemsItem', 404, 'Item não encontrado'],
    ['pt', 'purchaseValidation', 400, 'O campo purchase code é obrigatório.'],
    ['pt', 'purchaseValidation', 404, 'Código de compra inválido'],
  ] as const)('%s %s %i: {"status":"error","msg":%j}', (lang, operation, status, msg) => {
    expect(problems(operation, status, `{"status":"error","msg":${JSON.stringify(msg)}}`, lang)).toEqual([]);
  });

  it('has exactly the statuses MarketBob answers for each endpoint', () => {
    const statuses = (operation: MarketbobOperation) => [
      ...marketbobResponseSchemas(marketbobContractOf(operation), marketbobMessages('en')).keys(),
    ];
    expect(statuses('accountDetails')).toEqual([200, 400, 401, 404]);
    expect(statuses('itemsAll')).toEqual([200, 400, 404]);
    expect(statuses('itemsItem')).toEqual([200, 400, 404]);
    expect(statuses('purchaseValidation')).toEqual([200, 400, 404]);
  });
});

describe("MarketBob's shape: the schemas refuse what MarketBob never answers", () => {
  const withItem = (change: (item: Json) => Json) => ({ status: 'success', item: change({ ...audioItem }) });
  const withImage = (change: (item: Json) => Json) => ({ status: 'success', item: change({ ...imageItem }) });
  const account = () => parsed(MARKETBOB_BODIES.accountDetails).data as Json;

  it("refuses the contract's shapes: tags as a list, screenshots as a list, three-decimal dates, data.purchase", () => {
    expect(
      problems(
        'itemsItem',
        200,
        withItem((item) => ({ ...item, tags: ['ambient', 'loops'] })),
      ),
    ).toEqual(['/item/tags must be string']);
    expect(
      problems(
        'itemsItem',
        200,
        withImage((item) => ({ ...item, media: { ...(item.media as Json), screenshots: ['https://x/1.png'] } })),
      ).join('\n'),
    ).toMatch(/media/);
    expect(
      problems(
        'itemsItem',
        200,
        withItem((item) => ({ ...item, published_at: '2023-01-15T09:30:00.000Z' })),
      ),
    ).toEqual(['/item/published_at must match pattern "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z$"']);
    expect(
      problems('purchaseValidation', 200, { status: 'success', data: { purchase: MARKETBOB_PURCHASE } }).join('\n'),
    ).toMatch(/must have required property 'item'/);
    expect(problems('accountDetails', 200, { status: 'Sucesso', data: account() })).toEqual([
      '/status must be equal to constant',
    ]);
  });

  it('refuses media a preview type never has, and an image item without its screenshots key', () => {
    const audioWithImage = withItem((item) => ({
      ...item,
      media: { ...(item.media as Json), preview_image: 'https://x/p.png' },
    }));
    expect(problems('itemsItem', 200, audioWithImage).join('\n')).toMatch(/\/item\/media/);
    const imageWithoutScreenshots = withImage((item) => {
      const { screenshots: _, ...media } = item.media as Json;
      return { ...item, media };
    });
    expect(problems('itemsItem', 200, imageWithoutScreenshots).join('\n')).toMatch(/\/item\/media/);
    const screenshotsWithNames = withImage((item) => ({
      ...item,
      media: { ...(item.media as Json), screenshots: { first: 'https://x/1.png' } },
    }));
    expect(problems('itemsItem', 200, screenshotsWithNames).join('\n')).toMatch(/\/item\/media/);
  });

  it('refuses money as text, a string id, an extra key, keys out of order, and options of another kind', () => {
    expect(problems('accountDetails', 200, { status: 'success', data: { ...account(), balance: '1259.50' } })).toEqual([
      '/data/balance must be number',
    ]);
    expect(
      problems(
        'itemsItem',
        200,
        withItem((item) => ({ ...item, id: '3' })),
      ),
    ).toEqual(['/item/id must be integer']);
    expect(
      problems(
        'itemsItem',
        200,
        withItem((item) => ({ ...item, rating: 5 })),
      ),
    ).toContain('/item must NOT have additional properties');
    const { id, name, ...rest } = audioItem;
    expect(problems('itemsItem', 200, { status: 'success', item: { name, id, ...rest } })).toEqual([
      '/item: keys name,id,description,category,sub_category,options,version,demo_link,tags,media,price,currency,published_at, ' +
        'expected id,name,description,category,sub_category,options,version,demo_link,tags,media,price,currency,published_at',
    ]);
    expect(
      problems(
        'itemsItem',
        200,
        withItem((item) => ({ ...item, options: 'Responsive' })),
      ).join('\n'),
    ).toMatch(/\/item\/options/);
    expect(
      problems(
        'itemsItem',
        200,
        withItem((item) => ({ ...item, version: undefined })),
      ),
    ).toEqual(["/item must have required property 'version'"]);
  });

  it('takes a one-item list (where MarketBob answers 404), refuses an empty one, and messages of another endpoint or language', () => {
    expect(problems('itemsAll', 200, { status: 'success', items: [imageItem] })).toEqual([]);
    expect(problems('itemsAll', 200, { status: 'success', items: [] })).toEqual([
      '/items must NOT have fewer than 1 items',
    ]);
    expect(problems('itemsItem', 404, { status: 'error', msg: 'Invalid purchase code' })).toEqual([
      '/msg must be equal to one of the allowed values',
    ]);
    expect(problems('itemsItem', 404, { status: 'error', msg: 'Item não encontrado' })).toEqual([
      '/msg must be equal to one of the allowed values',
    ]);
    expect(problems('accountDetails', 404, { status: 'error', msg: 'Not Found' })).toEqual([]);
    expect(problems('purchaseValidation', 400, { status: 'error', msg: 'The item id field is required.' })).toEqual([
      '/msg must be equal to one of the allowed values',
    ]);
    expect(problems('accountDetails', 401, { status: 'error', message: 'Invalid request' }).join('\n')).toMatch(
      /required property 'msg'/,
    );
    expect(problems('accountDetails', 404, { status: 'error', msg: 'Invalid request' })).toEqual([
      '/msg must be equal to constant',
    ]);
    expect(problems('accountDetails', 403, { status: 'error', msg: 'Invalid request' })).toEqual([
      "accountDetails has no 403 answer in MarketBob's shape",
    ]);
  });
});
