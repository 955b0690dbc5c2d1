import { type Static, Type } from '@sinclair/typebox';
import { type Brand, BrandSchema } from './workspace-brand.js';

/** The seller's workspace pages: sessions, login attempts, and the marketplace's brand. */
export const WorkspaceSchema = Type.Object(
  {
    sessionIdleMinutes: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 7 * 24 * 60, description: 'A session unused this long ends' }),
    ),
    sessionMaxHours: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 30 * 24, description: 'A session ends this long after login, however busy' }),
    ),
    loginAttempts: Type.Optional(
      Type.Object(
        {
          perAccount: Type.Integer({
            minimum: 1,
            description: 'Failed logins per account and client address, per window (fewer after each lockout)',
          }),
          perClient: Type.Integer({
            minimum: 1,
            description: 'Failed logins per client address and window, any accounts',
          }),
          windowSeconds: Type.Integer({ minimum: 1 }),
        },
        { additionalProperties: false },
      ),
    ),
    brand: Type.Optional(BrandSchema),
  },
  { additionalProperties: false },
);
export type WorkspaceSettings = Required<Omit<Static<typeof WorkspaceSchema>, 'brand'>> & {
  /** Resolved by checkBrand (workspace-brand.ts); the product's own when left out. */
  readonly brand?: Brand | undefined;
};
