import { type Static, Type } from '@sinclair/typebox';

/** A budget in the config file: `max` per window of `windowSeconds`. */
const BudgetSchema = Type.Object(
  {
    max: Type.Integer({
      minimum: 0,
      maximum: 1_000_000_000,
      description: 'At most this many per window; 0 turns it off',
    }),
    windowSeconds: Type.Integer({ minimum: 1, maximum: 86_400 }),
  },
  { additionalProperties: false },
);

/** The API's budgets in the config file (docs/decisions.md says why the defaults). */
export const LimitsSchema = Type.Object(
  {
    clientFailures: Type.Optional(BudgetSchema),
    keyClientFailures: Type.Optional(BudgetSchema),
    keyRequests: Type.Optional(BudgetSchema),
    keyReports: Type.Optional(BudgetSchema),
  },
  { additionalProperties: false },
);
export type LimitsConfig = Required<Static<typeof LimitsSchema>>;
