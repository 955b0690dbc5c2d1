import { type Static, Type } from '@sinclair/typebox';

/** The seller's workspace pages: sessions and login attempts. */
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
  },
  { additionalProperties: false },
);
export type WorkspaceSettings = Required<Static<typeof WorkspaceSchema>>;
