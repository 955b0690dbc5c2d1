import { describe, expect, it } from 'vitest';
import { deliveryDetailText } from '../../src/web/delivery-detail.js';
import { en } from '../../src/web/texts/en.js';
import { pt } from '../../src/web/texts/pt.js';

/** Every detail the outbound client stores, as the Webhooks page shows it in each language. */
describe('a delivery’s detail in the page’s language', () => {
  it.each([
    [null, '', ''],
    ['', '', ''],
    [
      'refused: the address is private, loopback, link-local or reserved',
      'Refused: the address is private, local or reserved.',
      'Recusada: o endereço é privado, local ou reservado.',
    ],
    [
      'refused: the URL must be an https URL',
      'Refused: The address must start with https://.',
      'Recusada: O endereço deve começar com https://.',
    ],
    ['timed out after 10 s', 'No answer within 10 s.', 'Sem resposta em 10 s.'],
    ['timed out after 0.5 s', 'No answer within 0.5 s.', 'Sem resposta em 0.5 s.'],
    [
      'could not connect (ECONNREFUSED)',
      'Could not connect (ECONNREFUSED).',
      'Não foi possível conectar (ECONNREFUSED).',
    ],
    ['could not connect', 'Could not connect.', 'Não foi possível conectar.'],
    ['a redirect, not followed', 'A redirect, which is not followed.', 'Um redirecionamento, que não é seguido.'],
    [
      'a redirect, not followed: moved',
      'A redirect, which is not followed. “moved”',
      'Um redirecionamento, que não é seguido. “moved”',
    ],
    ['HTTP 503', 'Answered HTTP 503.', 'Respondeu HTTP 503.'],
    [
      'HTTP 503: b nope /b failing',
      'Answered HTTP 503. “b nope /b failing”',
      'Respondeu HTTP 503. “b nope /b failing”',
    ],
    [
      'could not be prepared (see the server log)',
      'Could not be prepared (see the server log).',
      'Não foi possível prepará-la (veja o log do servidor).',
    ],
    ['something new', 'something new', 'something new'],
  ])('%s', (stored, english, portuguese) => {
    expect(deliveryDetailText(stored, en.webhookChecks)).toBe(english);
    expect(deliveryDetailText(stored, pt.webhookChecks)).toBe(portuguese);
  });
});
