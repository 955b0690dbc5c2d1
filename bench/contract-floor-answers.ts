import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { readMultipartFields, textFields } from './contract-floor-body.js';
import type { Answer, AnswerSlot, ContractFloorData } from './contract-floor-data.js';
import { type BenchRequest, bodyKindOf, parseRequestLine } from './request-lines.js';

/** Requests in flight to the real server while collecting: enough to keep its two cores busy. */
const CONCURRENCY = 16;

/** Headers Node's HTTP server writes for each answer itself (the floor's does as well) or that framing only needs. */
const PER_CONNECTION = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/** The slot of the answer `request` gets from the floor, made if missing (the same rules the floor serves by). */
export function slotOf(data: ContractFloorData, request: BenchRequest): Promise<AnswerSlot | undefined> {
  const at = request.path.indexOf('?');
  const path = at < 0 ? request.path : request.path.slice(0, at);
  if (request.method === 'GET') {
    return Promise.resolve(data.get(path, at < 0 ? '' : request.path.slice(at + 1), request.apiKey, true));
  }
  const kind = bodyKindOf(request.contentType);
  if (path !== '/api/purchases/validation' || kind === undefined) return Promise.resolve(undefined);
  if (kind !== 'multipart') {
    const fields = textFields(kind, request.body);
    return Promise.resolve(data.validation(request.apiKey, kind, fields?.purchase_code, true));
  }
  return new Promise((resolve) =>
    readMultipartFields(request.contentType, Buffer.from(request.body, 'utf8'), (fields) =>
      resolve(data.validation(request.apiKey, kind, fields?.purchase_code, true)),
    ),
  );
}

// Answers share most of their header names and values: one string each, not one per answer.
const strings = new Map<string, string>();
const intern = (text: string) => {
  const known = strings.get(text);
  if (known !== undefined) return known;
  strings.set(text, text);
  return text;
};

/** The real server's answer to `request`, as the floor will write it (see Answer). */
function fetchAnswer(agent: Agent, server: URL, request: BenchRequest): Promise<Answer> {
  const headers: Record<string, string> = { 'x-api-key': request.apiKey };
  if (request.contentType) headers['content-type'] = request.contentType;
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { agent, host: server.hostname, port: server.port, method: request.method, path: request.path, headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const body = Buffer.concat(chunks);
          const kept: (string | number)[] = [];
          let requestIdAt = -1;
          let hasLength = false;
          const raw = response.rawHeaders;
          for (let at = 0; at < raw.length; at += 2) {
            const name = raw[at] as string;
            const lower = name.toLowerCase();
            if (PER_CONNECTION.has(lower)) continue;
            if (lower === 'content-length') hasLength = true;
            if (lower === 'x-request-id') {
              requestIdAt = kept.length + 1;
              // Each request gets the floor's own id in its place.
              kept.push(intern(name), '');
            } else {
              kept.push(intern(name), intern(raw[at + 1] as string));
            }
          }
          // A streamed answer came chunked: the floor writes the same bytes with their length.
          if (!hasLength) kept.push('content-length', body.length);
          resolve({ status: response.statusCode ?? 0, headers: kept, requestIdAt, body });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(request.body || undefined);
  });
}

/**
 * Fills the floor's answer slots with the real server's answers to the requests in
 * `requestFiles` (the bench's request files, as wrk reads them): each line's slot is found by the
 * floor's own rules, and each distinct slot is asked of the real server once, with that line's
 * request. Returns how many requests were read and how many answers collected.
 */
export async function collectAnswers(data: ContractFloorData, server: URL, requestFiles: readonly string[]) {
  const toAsk: { slot: AnswerSlot; request: BenchRequest }[] = [];
  const queued = new Set<AnswerSlot>();
  let requests = 0;
  for (const file of requestFiles) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line === '') continue;
      requests++;
      const request = parseRequestLine(line);
      const slot = await slotOf(data, request);
      if (!slot) throw new Error(`the contract floor has no answer for ${request.method} ${request.path}`);
      if (slot.answer === undefined && !queued.has(slot)) {
        queued.add(slot);
        toAsk.push({ slot, request });
      }
    }
  }
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let next = 0;
  const worker = async () => {
    for (let job = toAsk[next++]; job !== undefined; job = toAsk[next++]) {
      job.slot.answer = await fetchAnswer(agent, server, job.request);
    }
  };
  try {
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  } finally {
    agent.destroy();
  }
  return { requests, answers: toAsk.length };
}
