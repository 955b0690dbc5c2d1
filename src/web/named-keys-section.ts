import { isKeyScope, type KeyScope, keyName } from '../domain/key-scope.js';
import { decryptApiKey } from '../keys/api-keys.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import type { Store } from '../store/store.js';
import type { WorkspaceTexts } from './texts/workspace-texts.js';

/** A date as the pages write it (the settings page's own). */
export type DateText = (t: WorkspaceTexts, at: Date) => { readonly iso: string; readonly text: string };

/** What the settings page's "More keys" card shows once after a POST (kept in the session's flash: never a key). */
export type NamedKeyFlash =
  | { readonly created: string }
  | { readonly revoked: string }
  | { readonly problem: 'badName' | 'badScope'; readonly name: string; readonly scope: string };

/** A row of the keys table. */
interface NamedKeyRow {
  readonly id: string;
  readonly name: string;
  readonly scope: KeyScope;
  readonly created: { readonly iso: string; readonly text: string };
  readonly lastUsed: { readonly iso: string; readonly text: string } | undefined;
}

/** The card's data, and the key the page's examples use when the seller has a validate key. */
export interface NamedKeysSection {
  readonly rows: readonly NamedKeyRow[];
  /** The key just made, in clear: on this one page only. */
  readonly created: { readonly id: string; readonly name: string; readonly key: string } | undefined;
  readonly revokedName: string | undefined;
  readonly problem: 'badName' | 'badScope' | undefined;
  readonly form: { readonly name: string; readonly scope: KeyScope };
  /**
   * The validate key the examples use (the one just made, else the newest): `value` in clear only
   * on the page that made it, else undefined (the examples then show it masked).
   */
  readonly exampleKey:
    | { readonly name: string; readonly value: string | undefined; readonly last4: string }
    | undefined;
}

const decrypted = (material: KeyMaterial, cipher: string | undefined) => {
  if (cipher === undefined) return undefined;
  try {
    return decryptApiKey(material, cipher);
  } catch {
    return undefined;
  }
};

/** Reads the account's named keys for the settings page, with what the last POST left to say. */
export async function namedKeysSection(
  store: Store,
  material: KeyMaterial,
  username: string,
  t: WorkspaceTexts,
  dateText: DateText,
  flash: NamedKeyFlash | undefined,
): Promise<NamedKeysSection> {
  const keys = await store.namedKeys(username);
  const createdId = flash && 'created' in flash ? flash.created : undefined;
  const createdRow = keys.find((key) => key.id === createdId);
  const createdKey = createdRow && decrypted(material, await store.namedKeyCipher(username, createdRow.id));
  const validate =
    createdRow?.scope === 'validate' ? createdRow : keys.filter((key) => key.scope === 'validate').at(-1);
  const validateKey =
    validate === undefined
      ? undefined
      : validate === createdRow
        ? createdKey
        : decrypted(material, await store.namedKeyCipher(username, validate.id));
  const problem = flash && 'problem' in flash ? flash : undefined;
  return {
    rows: keys.map((key) => ({
      id: key.id,
      name: key.name,
      scope: key.scope,
      created: dateText(t, new Date(key.createdAt)),
      lastUsed: key.lastUsedAt === undefined ? undefined : dateText(t, new Date(key.lastUsedAt)),
    })),
    created: createdRow && createdKey ? { id: createdRow.id, name: createdRow.name, key: createdKey } : undefined,
    revokedName: flash && 'revoked' in flash ? flash.revoked : undefined,
    problem: problem?.problem,
    form: {
      name: problem?.name ?? '',
      scope: problem && isKeyScope(problem.scope) ? problem.scope : 'validate',
    },
    exampleKey:
      validate && validateKey
        ? {
            name: validate.name,
            value: validate === createdRow ? validateKey : undefined,
            last4: validateKey.slice(-4),
          }
        : undefined,
  };
}

/** A POSTed "Add a key" form read: the name and scope, or the problem to show (with what was typed). */
export function readNamedKeyForm(fields: {
  readonly name: unknown;
  readonly scope: unknown;
}): { readonly name: string; readonly scope: KeyScope } | Extract<NamedKeyFlash, { problem: unknown }> {
  const typedName = typeof fields.name === 'string' ? fields.name.slice(0, 200) : '';
  const typedScope = typeof fields.scope === 'string' ? fields.scope.slice(0, 20) : '';
  const name = keyName(fields.name);
  if (name === undefined) return { problem: 'badName', name: typedName, scope: typedScope };
  if (!isKeyScope(fields.scope)) return { problem: 'badScope', name: typedName, scope: typedScope };
  return { name, scope: fields.scope };
}
