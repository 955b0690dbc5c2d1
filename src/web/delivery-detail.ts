import { PRIVATE_ADDRESS_ERROR, URL_PROBLEMS, URL_REFUSED, type UrlProblemCode } from '../webhooks/outbound-request.js';
import type { WorkspaceTexts } from './texts/workspace-texts.js';

/**
 * A delivery's stored detail (the English phrase the outbound client wrote, which the admin API
 * and the CLI show as it is) in the workspace page's language. The receiver's own excerpt is kept
 * as it answered it; a detail of an unknown form is shown as stored.
 */
export function deliveryDetailText(error: string | null, texts: WorkspaceTexts['webhookChecks']): string {
  if (error === null || error === '') return '';
  const { details } = texts;
  if (error === PRIVATE_ADDRESS_ERROR) return details.privateAddress;
  if (error.startsWith(URL_REFUSED)) {
    const phrase = error.slice(URL_REFUSED.length);
    const code = (Object.keys(URL_PROBLEMS) as UrlProblemCode[]).find((key) => URL_PROBLEMS[key] === phrase);
    return details.urlRefused(code === undefined ? phrase : texts.urlProblems[code]);
  }
  const timedOut = /^timed out after ([\d.]+) s$/.exec(error);
  if (timedOut) return details.timedOut(timedOut[1] as string);
  const connect = /^could not connect(?: \(([A-Z0-9_]+)\))?$/.exec(error);
  if (connect) return details.couldNotConnect(connect[1] ?? '');
  if (error === 'could not be prepared (see the server log)') return details.notPrepared;
  const answered = /^(a redirect, not followed|HTTP (\d{3}))(?:: (.*))?$/s.exec(error);
  if (answered) {
    const detail = answered[2] === undefined ? details.redirect : details.httpStatus(answered[2]);
    return answered[3] === undefined ? detail : details.excerpt(detail, answered[3]);
  }
  return error;
}
