import type { PageKit } from './page-kit.js';

/** `POST {base}/workspace/logout`: the session ends, here and on every instance, and its cookie goes. */
export function logoutPage(kit: PageKit): void {
  kit.workspacePage({
    method: 'POST',
    url: kit.urls.logout,
    handler: async (request, reply, _t, { sessionId }) => {
      await kit.sessions.end(sessionId);
      reply.clearCookie(kit.cookies.session, kit.cookies.sessionOptions(request));
      return reply.redirect(`${kit.urls.login}?logged_out=1`, 303);
    },
  });
}
