import type { RequestListener, ServerResponse } from 'node:http';
import { readMultipartFields, textFields } from './contract-floor-body.js';
import type { AnswerSlot, ContractFloorData } from './contract-floor-data.js';
import { bodyKindOf } from './request-lines.js';

const VALIDATION = '/api/purchases/validation';

/**
 * The contract floor's request handling (issue 21, item 5): the path and query cut apart, the key
 * from its header, the body read and parsed (JSON, urlencoded, multipart), and the account's and
 * the purchase's or item's lookups in `data`; `answer` writes what the slot found says. A request
 * the bench never makes (another method or path, another body type) is answered with no slot.
 * `create` makes the slots on the way (collecting the answers; bench/in-process.ts).
 */
export function contractFloorHandler(
  data: ContractFloorData,
  answer: (response: ServerResponse, slot: AnswerSlot | undefined) => void,
  create = false,
): RequestListener {
  return (request, response) => {
    const url = request.url ?? '/';
    const at = url.indexOf('?');
    const path = at < 0 ? url : url.slice(0, at);
    const apiKey = request.headers['x-api-key'] as string | undefined;
    if (request.method === 'GET') {
      answer(response, data.get(path, at < 0 ? '' : url.slice(at + 1), apiKey, create));
      return;
    }
    const contentType = request.headers['content-type'];
    const kind = bodyKindOf(contentType);
    if (request.method !== 'POST' || path !== VALIDATION || kind === undefined) {
      answer(response, undefined);
      return;
    }
    if (kind === 'multipart') {
      readMultipartFields(contentType as string, request, (fields) =>
        answer(response, data.validation(apiKey, kind, fields?.purchase_code, create)),
      );
      return;
    }
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () =>
      answer(response, data.validation(apiKey, kind, textFields(kind, body)?.purchase_code, create)),
    );
  };
}
