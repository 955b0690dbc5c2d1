import type { WorkspaceTexts } from './texts/workspace-texts.js';

/** The validation call (SPEC 2, endpoint 4) as a seller pastes it into a terminal or their PHP code. */
export interface ValidationExample {
  readonly curl: string;
  readonly php: string;
}

/**
 * Both examples for `url` (the variant's validation address as this browser reaches it) and
 * `key` (the seller's key, or its mask while hidden). Plain text: the page's template escapes it.
 * The PHP sends an array, so a multipart body, which the API accepts (SPEC 2.1), and reads the status.
 */
export function validationExample(t: WorkspaceTexts, url: string, key: string): ValidationExample {
  const curl = [
    `curl -X POST '${url}' \\`,
    `  -H 'X-Api-Key: ${key}' \\`,
    `  -d 'purchase_code=${t.settings.examplePurchaseCode}'`,
  ].join('\n');
  const php = [
    '<?php',
    `// ${t.settings.examplePhpComment}`,
    `$ch = curl_init('${url}');`,
    'curl_setopt_array($ch, [',
    '    CURLOPT_POST => true,',
    `    CURLOPT_HTTPHEADER => ['X-Api-Key: ${key}'],`,
    "    CURLOPT_POSTFIELDS => ['purchase_code' => $purchaseCode],",
    '    CURLOPT_RETURNTRANSFER => true,',
    ']);',
    '$answer = json_decode(curl_exec($ch), true);',
    '$valid = curl_getinfo($ch, CURLINFO_RESPONSE_CODE) === 200;',
    'curl_close($ch);',
  ].join('\n');
  return { curl, php };
}
