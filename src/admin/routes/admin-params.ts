import { Type } from '@sinclair/typebox';
import type { KeyScope } from '../../domain/key-scope.js';
import { isKeyScope, keyName } from '../../domain/key-scope.js';
import { activationLimitFromJson } from '../../operations/activation-operations.js';

/**
 * A yes/no option of the query string (`?now=true`): false when absent, undefined when it is
 * anything but `true` or `false` (or given twice), which the route answers as a malformed request.
 */
export const QueryFlag = Type.Transform(Type.Unknown())
  .Decode((value): boolean | undefined => {
    if (value === undefined || value === 'false') return false;
    return value === 'true' ? true : undefined;
  })
  .Encode((flag) => (flag === undefined ? undefined : String(flag)));

/** An activation limit as JSON gives it: a whole number in range, null (none); undefined when neither. */
export const ActivationLimit = Type.Transform(Type.Unknown())
  .Decode((value): number | null | undefined => activationLimitFromJson(value))
  .Encode((limit) => limit);

/** A named key's name, trimmed and checked; undefined when it is not one. */
export const KeyName = Type.Transform(Type.Unknown())
  .Decode((value): string | undefined => keyName(value))
  .Encode((name) => name);

/** A named key's scope; undefined when it is not one. */
export const KeyScopeField = Type.Transform(Type.Unknown())
  .Decode((value): KeyScope | undefined => (isKeyScope(value) ? value : undefined))
  .Encode((scope) => scope);

export const AccountParams = Type.Object({ username: Type.String() });
export const AccountItemParams = Type.Object({ username: Type.String(), id: Type.String() });
