import type { FastifyReply, FastifyRequest } from 'fastify';
import { decryptApiKey } from '../../keys/api-keys.js';
import type { AccountRow } from '../../records/rows.js';
import { type NamedKeyFlash, type NamedKeysSection, namedKeysSection } from '../named-keys-section.js';
import type { WorkspaceTexts } from '../texts/workspace-texts.js';
import { exampleCodeOf, validationExample } from '../validation-example.js';
import type { PageKit, SignedIn } from './page-kit.js';

/** How a hidden key is written (its last four characters only), on the page and in the examples. */
const masked = (key: string) => `${'•'.repeat(20)}${key.slice(-4)}`;

/**
 * The settings page's "More keys" data; with a validate key, the examples written with it (in clear
 * only on the page that made it, else masked as the account's key is), and a note naming it.
 */
const namedKeysPageData = (section: NamedKeysSection, t: WorkspaceTexts, url: string, code: string | undefined) => {
  const example = section.exampleKey;
  if (example === undefined) return { namedKeys: section };
  const key = example.value ?? masked(example.last4);
  return {
    namedKeys: section,
    example: validationExample(t, url, key, code),
    exampleToCopy: undefined,
    exampleKeyNote: t.namedKeys.exampleUsesKey(example.name),
  };
};

/**
 * `{base}/workspace/settings`: the account's API key (masked; Show and Copy ask for it with a POST),
 * its dates, the validation examples, the "More keys" card and the signing keys. What the last
 * POST did (a new key, a named key made or revoked) is shown once, from the session's flash.
 */
export function settingsPages(kit: PageKit): void {
  const { store, keys, activity, signingKeys } = kit.deps;
  const { dateText } = kit;
  const settingsUrl = kit.urls.settings;

  /** The account's key in clear, or undefined when it has none this server can read. */
  const currentKey = (request: FastifyRequest, account: AccountRow): string | undefined => {
    if (!account.key_cipher) return undefined;
    try {
      return decryptApiKey(keys, account.key_cipher);
    } catch {
      request.log.warn({ reqId: request.id, username: account.username }, 'stored API key cannot be decrypted');
      return undefined;
    }
  };

  /** The validation address as this browser reaches the variant (its host and base). */
  const validationUrl = (request: FastifyRequest) =>
    `${request.protocol}://${request.host}${kit.prefix}/api/purchases/validation`;

  const settingsPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    t: WorkspaceTexts,
    who: SignedIn,
    options: { reveal: boolean; rotated?: { oldKeyWorksUntil: Date | undefined }; namedKey?: NamedKeyFlash },
  ) => {
    const key = currentKey(request, who.account);
    const until = options.rotated?.oldKeyWorksUntil;
    const [keyDate, lastUsedAt, marketbobUser, exampleCode] = await Promise.all([
      key === undefined ? undefined : store.keyDate(who.account.username),
      key === undefined ? undefined : store.keyLastUsedAt(who.account.username),
      store.marketbobUserId(who.account.username),
      exampleCodeOf(store, activity, who.account.username),
    ]);
    const url = validationUrl(request);
    const shownKey = key === undefined ? 'YOUR_API_KEY' : options.reveal ? key : masked(key);
    return kit.renderPage(reply, 200, 'settings', {
      ...kit.context(request, reply, t, who),
      title: t.settings.title,
      nav: 'settings',
      key:
        key === undefined
          ? undefined
          : options.reveal
            ? { revealed: key }
            : // Masked: not the key itself, anywhere in the page; Copy asks for it (keyUrl), as Show does.
              { masked: masked(key), last4: key.slice(-4) },
      keyUrl: `${settingsUrl}/key`,
      createdAt: keyDate === undefined ? undefined : dateText(t, new Date(keyDate.at)),
      // When it arrived rather than when it was made: that was elsewhere.
      keyImported: keyDate?.origin === 'imported',
      lastUsedAt: lastUsedAt === undefined ? undefined : dateText(t, new Date(lastUsedAt)),
      example: validationExample(t, url, shownKey, exampleCode),
      rotated: options.rotated !== undefined,
      // MarketBob owns the key: the seller replaces it there (docs/marketbob.md).
      keyFromMarketplace: marketbobUser !== undefined,
      oldKeyWorksUntil: until && dateText(t, until),
      // The "More keys" card; with a validate key, the examples use it rather than the account's own.
      ...namedKeysPageData(
        await namedKeysSection(store, keys, who.account.username, t, dateText, options.namedKey),
        t,
        url,
        exampleCode,
      ),
      signingKeys: signingKeys?.published ?? [],
    });
  };

  kit.workspacePage({
    method: 'GET',
    url: `${kit.prefix}/workspace`,
    handler: async (_request, reply) => reply.redirect(settingsUrl, 303),
  });

  kit.workspacePage({
    method: 'GET',
    url: settingsUrl,
    handler: async (request, reply, t, who) => {
      // What the last POST left to show, once: a reload shows the page as it is, not the key again.
      const flash = await kit.takeFlash(who);
      if (flash && 'webhook' in flash) return settingsPage(request, reply, t, who, { reveal: false });
      if (flash && 'namedKey' in flash) {
        return settingsPage(request, reply, t, who, { reveal: false, namedKey: flash.namedKey });
      }
      if (flash && 'rotated' in flash) {
        const until = flash.rotated.oldKeyWorksUntil;
        return settingsPage(request, reply, t, who, {
          reveal: true,
          rotated: { oldKeyWorksUntil: until === null ? undefined : new Date(until) },
        });
      }
      return settingsPage(request, reply, t, who, { reveal: flash !== undefined && 'reveal' in flash });
    },
  });

  kit.workspacePage({
    method: 'POST',
    url: `${settingsUrl}/show`,
    handler: async (_request, reply, _t, who) => kit.redirectWith(reply, who, settingsUrl, { reveal: true }),
  });

  // Copy on the masked page: the key and the examples with it, asked for as Show asks (a POST
  // with the session's CSRF token), so that a page that only shows the mask never holds the key.
  kit.workspacePage({
    method: 'POST',
    url: `${settingsUrl}/key`,
    handler: async (request, reply, t, who) => {
      const key = currentKey(request, who.account);
      reply.type('application/json; charset=utf-8');
      if (key === undefined) return reply.code(404).send('{"key":null}');
      const example = validationExample(
        t,
        validationUrl(request),
        key,
        await exampleCodeOf(store, activity, who.account.username),
      );
      return reply.send(JSON.stringify({ key, examples: { curl: example.curl, php: example.php } }));
    },
  });
}
