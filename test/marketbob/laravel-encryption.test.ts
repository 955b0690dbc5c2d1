import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  type AppKey,
  decryptLaravelString,
  LaravelDecryptError,
  parseAppKey,
} from '../../src/marketbob/laravel-encryption.js';
import { buildMarketbobConfig } from '../../src/marketbob/marketbob-config.js';
import { laravelEncrypt, newAppKey } from './laravel-payload.js';

const SECRET = 'JBSWY3DPEHPK3PXP';

const keyOf = (appKey: string): AppKey => {
  const key = parseAppKey(appKey);
  if (key === undefined) throw new Error('not an APP_KEY');
  return key;
};

describe("Laravel's encrypt(), opened with the APP_KEY", () => {
  it('opens a payload made as Laravel makes it: the serialized string back', () => {
    const appKey = newAppKey();
    const key = keyOf(appKey);
    expect(decryptLaravelString(laravelEncrypt(SECRET, appKey), key)).toBe(SECRET);
    // Byte lengths, not characters, in the serialized form.
    expect(decryptLaravelString(laravelEncrypt('çé', appKey), key)).toBe('çé');
  });

  it('refuses another key, a changed MAC, value or iv, another cipher, and what is not a payload', () => {
    const appKey = newAppKey();
    const key = keyOf(appKey);
    const payload = laravelEncrypt(SECRET, appKey);
    const fields = JSON.parse(Buffer.from(payload, 'base64').toString()) as { iv: string; value: string; mac: string };
    const remade = (changes: Record<string, string>) =>
      Buffer.from(JSON.stringify({ ...fields, ...changes })).toString('base64');
    const flip = (text: string) => (text[0] === 'A' ? `B${text.slice(1)}` : `A${text.slice(1)}`);

    expect(() => decryptLaravelString(payload, keyOf(newAppKey()))).toThrow(
      new LaravelDecryptError('the MAC does not match (another APP_KEY?)'),
    );
    // The MAC is hex, read in any letter case: another digit, not another case.
    const flipHex = (text: string) => (text[0] === '0' ? `1${text.slice(1)}` : `0${text.slice(1)}`);
    expect(() => decryptLaravelString(remade({ mac: flipHex(fields.mac) }), key)).toThrow(/MAC does not match/);
    expect(() => decryptLaravelString(remade({ value: flip(fields.value) }), key)).toThrow(/MAC does not match/);
    expect(() => decryptLaravelString(remade({ iv: flip(fields.iv) }), key)).toThrow(/MAC does not match/);
    expect(() => decryptLaravelString(remade({ tag: 'abc' }), key)).toThrow(/not AES-256-CBC/);
    expect(() => decryptLaravelString(remade({ iv: 'c2hvcnQ=' }), key)).toThrow(/bad iv/);
    expect(() => decryptLaravelString('not base64 json', key)).toThrow(LaravelDecryptError);
    expect(() => decryptLaravelString(Buffer.from('{"iv":1}').toString('base64'), key)).toThrow(
      /not an encrypted payload/,
    );
    // A value encrypted unserialized (encryptString) or serialized as something else is not a secret.
    expect(() => decryptLaravelString(laravelEncrypt('', appKey, { serialized: SECRET }), key)).toThrow(
      /not a serialized string/,
    );
    expect(() => decryptLaravelString(laravelEncrypt('', appKey, { serialized: 'i:5;' }), key)).toThrow(
      /not a serialized string/,
    );
    expect(() => decryptLaravelString(laravelEncrypt('', appKey, { serialized: 's:3:"ab";' }), key)).toThrow(
      /not a serialized string/,
    );
  });

  it('takes the APP_KEY only as base64: and 32 bytes, and never shows it', () => {
    expect(parseAppKey('base64:c2hvcnQ=')).toBeUndefined();
    expect(parseAppKey(newAppKey().slice('base64:'.length))).toBeUndefined();
    expect(parseAppKey('base64:***')).toBeUndefined();
    const appKey = newAppKey();
    const key = keyOf(appKey);
    const encoded = appKey.slice('base64:'.length);
    expect(JSON.stringify({ key })).toBe('{"key":"(set)"}');
    expect(inspect({ key })).not.toContain(encoded);
    expect(inspect({ key })).not.toContain(key.bytes().toString('hex'));
  });

  it('config: MARKETBOB_APP_KEY over marketbob.appKey; a bad one is a problem that does not repeat it', () => {
    const base = { MARKETBOB_DATABASE_URL: 'mysql://u:p@db:3306/mb', MARKETBOB_MEDIA_BASE_URL: 'https://m.example' };
    const fromEnv = newAppKey();
    const problems: string[] = [];
    const config = buildMarketbobConfig({ appKey: newAppKey() }, { ...base, MARKETBOB_APP_KEY: fromEnv }, problems);
    expect(problems).toEqual([]);
    expect(config?.appKey?.bytes()).toEqual(Buffer.from(fromEnv.slice(7), 'base64'));
    expect(buildMarketbobConfig(undefined, base, problems)?.appKey).toBeUndefined();

    const bad = 'base64:dG9vIHNob3J0';
    const refused: string[] = [];
    buildMarketbobConfig(undefined, { ...base, MARKETBOB_APP_KEY: bad }, refused);
    expect(refused).toEqual(["MARKETBOB_APP_KEY: must be MarketBob's APP_KEY, base64: followed by 32 bytes in base64"]);
    const inFile: string[] = [];
    buildMarketbobConfig({ appKey: 'plain-text' }, base, inFile);
    expect(inFile).toEqual(["marketbob.appKey: must be MarketBob's APP_KEY, base64: followed by 32 bytes in base64"]);
  });
});
