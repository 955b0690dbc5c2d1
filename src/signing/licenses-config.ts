import { type Static, Type } from '@sinclair/typebox';

/** The config file's `licenses` section: offline license tokens (`POST {base}/api/purchases/license`). */
export const LicensesSchema = Type.Object(
  {
    tokenDays: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 3650,
        description: 'Days a license token is valid; a replaced signing key stays published this long (and a day more)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type LicensesConfig = Readonly<Required<Static<typeof LicensesSchema>>>;

export const LICENSES_DEFAULTS = { tokenDays: 30 } as const satisfies LicensesConfig;
