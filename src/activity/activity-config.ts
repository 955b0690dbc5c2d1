import { type Static, Type } from '@sinclair/typebox';

/** The config file's `activity` section: counting how each purchase code is used. */
export const ActivitySchema = Type.Object(
  {
    enabled: Type.Optional(
      Type.Boolean({
        description: 'Count validations per purchase code; false counts nothing (what is stored is still shown)',
      }),
    ),
    flushSeconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 300,
        description: 'How often each process writes the counts it gathered in memory (and at shutdown)',
      }),
    ),
    retentionDays: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 3650, description: 'Days of activity kept; older days are dropped' }),
    ),
  },
  { additionalProperties: false },
);
export type ActivityConfig = Readonly<Required<Static<typeof ActivitySchema>>>;

export const ACTIVITY_DEFAULTS = {
  enabled: true,
  flushSeconds: 10,
  retentionDays: 90,
} as const satisfies ActivityConfig;
