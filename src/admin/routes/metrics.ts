import { adminRoute } from '../admin-route.js';

/** `GET /metrics`: the Prometheus text of every process serving. */
export const metricsRoute = adminRoute({
  method: 'GET',
  url: '/metrics',
  handler: async (_request, reply, { metrics, metricsText }) => {
    const text = await metricsText();
    return reply
      .code(200)
      .header('content-type', metrics.registry.contentType)
      .header('cache-control', 'no-store')
      .send(text);
  },
});
