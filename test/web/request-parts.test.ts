import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { AsGiven, decodePart, FormText, partsValidatorCompiler } from '../../src/web/request-parts.js';

const compile = (schema: ReturnType<typeof Type.Object>) =>
  partsValidatorCompiler({ schema, method: 'POST', url: '/x', httpPart: 'body' });

describe('request parts (the routes’ TypeBox schemas, as Fastify checks them)', () => {
  it('reads a form field as the pages always have: a text as typed, anything else as a blank field', () => {
    const Form = Type.Object({ username: FormText, password: FormText });
    expect(decodePart(Form, { username: ' jdoe ', password: 'pw' })).toEqual({ username: ' jdoe ', password: 'pw' });
    // Not sent, sent twice, sent as JSON of another type, or no body at all: blank.
    expect(decodePart(Form, { username: ['a', 'b'], password: 5 })).toEqual({ username: '', password: '' });
    expect(decodePart(Form, null)).toEqual({ username: '', password: '' });
    expect(decodePart(Form, 'text')).toEqual({ username: '', password: '' });
  });

  it('leaves the fields it does not declare as they came (the CSRF plugin reads its own)', () => {
    const Form = Type.Object({ code: FormText, passed: AsGiven });
    const given = Object.assign(Object.create(null), { code: '123456', _csrf: ['x', 'y'], passed: { a: 1 } });
    expect(decodePart(Form, given)).toEqual({ code: '123456', _csrf: ['x', 'y'], passed: { a: 1 } });
  });

  it('hands Fastify the decoded part, or a validation error when a field does not match its schema', () => {
    const validate = compile(Type.Object({ id: Type.String(), name: FormText }));
    expect(validate({ id: 'abc' })).toEqual({ value: { id: 'abc', name: '' } });
    const failed = validate({ id: 7 });
    expect(failed).toHaveProperty('error');
    expect((failed as { error: unknown }).error).toBeInstanceOf(Error);
  });

  it('refuses a route part that is not a TypeBox object when the route is added', () => {
    expect(() =>
      partsValidatorCompiler({ schema: Type.String(), method: 'GET', url: '/x', httpPart: 'querystring' }),
    ).toThrow(/TypeBox object/);
  });
});
