import type { ActivityReader } from '../activity/purchase-activity.js';
import { DEMO_PURCHASE_CODE } from '../demo/demo-data.js';
import type { Store } from '../store/store.js';
import { codeRows } from './purchase-codes-page.js';
import type { WorkspaceTexts } from './texts/workspace-texts.js';

/** The validation call as a seller pastes it into a terminal or their PHP code. */
export interface ValidationExample {
  readonly curl: string;
  readonly php: string;
}

/** Quotes a string for PHP (single quotes: nothing in it is interpolated). */
const phpString = (text: string) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
/** Quotes a string for a shell's single quotes. */
const shellString = (text: string) => text.replaceAll("'", "'\\''");

/**
 * A real purchase code of the seller's, so that the examples answer 200 as pasted: the demo's
 * valid code when the seller owns it, else the active code of theirs seen from the most networks
 * lately; undefined when there is none (the examples then show a placeholder).
 */
export async function exampleCodeOf(
  store: Store,
  reports: ActivityReader,
  account: string,
): Promise<string | undefined> {
  const demo = await store.purchase(DEMO_PURCHASE_CODE.toLowerCase());
  if (demo !== undefined && demo.status === 'active' && (await store.item(demo.item_id))?.account === account) {
    return demo.code;
  }
  return (await codeRows(store, reports, account, 30)).find((row) => row.status === 'active')?.code;
}

/**
 * Both examples for `url` (the variant's validation address as this browser reaches it), `key`
 * (the seller's key, or its mask while hidden) and `code` (a code of the seller's, or undefined).
 * Plain text: the page's template escapes it. The PHP runs as pasted (`php example.php`): it sends
 * an array, so a multipart body, which the API accepts, and says what the answer was.
 */
export function validationExample(t: WorkspaceTexts, url: string, key: string, code?: string): ValidationExample {
  const purchaseCode = code ?? t.settings.examplePurchaseCode;
  const words = t.exampleWords;
  const curl = [
    `curl -X POST '${shellString(url)}' \\`,
    `  -H 'X-Api-Key: ${shellString(key)}' \\`,
    `  -d 'purchase_code=${shellString(purchaseCode)}'`,
  ].join('\n');
  const php = [
    '<?php',
    `// ${code === undefined ? words.phpCodeComment : words.phpOwnCodeComment}`,
    `$purchaseCode = ${phpString(purchaseCode)};`,
    `$ch = curl_init(${phpString(url)});`,
    'curl_setopt_array($ch, [',
    '    CURLOPT_POST => true,',
    `    CURLOPT_HTTPHEADER => [${phpString(`X-Api-Key: ${key}`)}],`,
    "    CURLOPT_POSTFIELDS => ['purchase_code' => $purchaseCode],",
    '    CURLOPT_RETURNTRANSFER => true,',
    ']);',
    '$answer = json_decode(curl_exec($ch), true);',
    '$valid = curl_getinfo($ch, CURLINFO_RESPONSE_CODE) === 200;',
    'curl_close($ch);',
    `echo $valid ? ${phpString(words.phpValid)} : ${phpString(words.phpNotValid)}, PHP_EOL;`,
  ].join('\n');
  return { curl, php };
}
