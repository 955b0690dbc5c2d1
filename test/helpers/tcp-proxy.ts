import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';

/**
 * A TCP proxy between the app and a database server (PostgreSQL, MariaDB), to take the server away
 * without touching it (other developers share it): `refuse` closes it (connections reset, new ones refused), `silence` lets
 * connections open but carries nothing either way, `restore` serves again.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private silent = false;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async listen(): Promise<void> {
    const server = createServer((client) => this.accept(client));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as { port: number }).port;
  }

  private accept(client: Socket): void {
    this.track(client);
    if (this.silent) return;
    const upstream = tcpConnect(this.targetPort, this.targetHost);
    this.track(upstream);
    client.on('data', (data) => {
      if (!this.silent) upstream.write(data);
    });
    upstream.on('data', (data) => {
      if (!this.silent) client.write(data);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => this.sockets.delete(socket));
  }

  private dropAll(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  async refuse(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.dropAll();
    await new Promise<void>((resolve) => server?.close(() => resolve()) ?? resolve());
  }

  silence(): void {
    this.silent = true;
  }

  async restore(): Promise<void> {
    // What went through a silenced connection is lost: those connections cannot be trusted again.
    this.dropAll();
    this.silent = false;
    if (!this.server) await this.listen();
  }

  async close(): Promise<void> {
    await this.refuse();
  }
}
