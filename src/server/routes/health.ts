import type { FastifyInstance } from 'fastify';

/** `GET /healthz`, no token: for load balancers. */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get('/healthz', async () => ({ status: 'ok' }));
}
