import type { StoreLocation } from './store/store-location.js';

/**
 * What a failed start says: which setting to change, never a secret (a database URL may hold a
 * password: only its host and port are repeated).
 */

/** A start that cannot go on, with a message that already says what to do. */
export class StartError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartError';
  }
}

const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  // Connecting to "localhost" tries each address: Node reports every refusal together.
  const inner = (error as { errors?: unknown[] } | null)?.errors?.[0];
  return inner === undefined ? undefined : codeOf(inner);
};

/**
 * A JSON syntax error as its line and column in `text` (1-based), read from the parser's
 * "position N"; the end of the text when the parser gave none (the text ended too soon).
 */
export function jsonSyntaxProblem(text: string, error: Error): string {
  const given = /line (\d+) column (\d+)/.exec(error.message);
  let line: number;
  let column: number;
  if (given) {
    line = Number(given[1]);
    column = Number(given[2]);
  } else {
    const position = /at position (\d+)/.exec(error.message);
    const offset = position ? Math.min(Number(position[1]), text.length) : text.length;
    const before = text.slice(0, offset).split('\n');
    line = before.length;
    column = (before.at(-1)?.length ?? 0) + 1;
  }
  const reason = error.message
    .replace(/\s*\(line \d+ column \d+\)/, '')
    .replace(/ in JSON at position \d+.*$/s, '')
    .replace(/,? ".*" is not valid JSON$/s, '');
  return `not valid JSON at line ${line}, column ${column}: ${reason}`;
}

/** What the server could not listen on, and the variable that moves it. */
export function listenProblem(
  error: unknown,
  where: {
    readonly host: string;
    readonly port: number;
    readonly metricsPort?: number | undefined;
    readonly metricsHost?: string | undefined;
  },
  variable: 'PORT' | 'METRICS_PORT' = 'PORT',
): string | undefined {
  const code = codeOf(error);
  const host = variable === 'PORT' ? where.host : (where.metricsHost ?? where.host);
  const hostVariable = variable === 'PORT' ? 'HOST' : 'METRICS_HOST';
  const port = variable === 'PORT' ? where.port : (where.metricsPort ?? 0);
  const other = port === 65535 ? 8081 : port + 1;
  switch (code) {
    case 'EADDRINUSE':
      return (
        `port ${port} on ${host} is already in use (another program, or this server started twice). ` +
        `Stop that program, or start on another port: ${variable}=${other} npm start` +
        ` (${hostVariable}=${host} is the address listened on)`
      );
    case 'EACCES':
      return `port ${port} on ${host} needs privileges this process does not have: choose a port above 1023 (${variable}=8080) or give it the right to bind`;
    case 'EADDRNOTAVAIL':
      return `${hostVariable}=${host} is not an address of this machine: use 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${hostVariable}=${host} is not a known address or name: use 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)`;
    default:
      return undefined;
  }
}

/** The host and port of a database URL, without its user name or password. */
function hostOf(url: string, defaultPort: number): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || defaultPort}`;
  } catch {
    return 'the host it names';
  }
}

/** Why the store could not be opened, naming DATABASE_URL; undefined when the error is not one of those. */
export function storeProblem(error: unknown, store: StoreLocation): string | undefined {
  const code = codeOf(error);
  if (store.kind === 'sqlite') {
    const message = error instanceof Error ? error.message : '';
    if (message.startsWith('DATABASE_URL')) return message;
    if (code === 'SQLITE_CANTOPEN' || code === 'EACCES' || code === 'EROFS' || code === 'SQLITE_READONLY') {
      return `cannot open the SQLite store ${store.path} (${code}): check DATABASE_URL, and that this user may write to the file and its directory`;
    }
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
      return `${store.path} is not a SQLite store (${code}): check DATABASE_URL`;
    }
    return undefined;
  }
  const at = hostOf(store.url, 5432);
  const reasons: Readonly<Record<string, string>> = {
    ECONNREFUSED: 'the connection was refused: is PostgreSQL running there, on that port?',
    ENOTFOUND: 'that host name is not known',
    EAI_AGAIN: 'that host name could not be looked up now',
    ETIMEDOUT: 'no answer in time (a firewall, or the wrong host?)',
    ECONNRESET: 'the connection was closed (TLS expected? try ?sslmode=require)',
    EHOSTUNREACH: 'that host cannot be reached',
    '28P01': 'the user name or password was refused',
    '28000': 'this user may not connect (pg_hba.conf)',
    '3D000': 'the database it names does not exist: create it (createdb) or name another',
    '42501': 'the user may not create the tables (grant it the rights on the database, or use its owner)',
  };
  const message = error instanceof Error ? error.message : '';
  const reason =
    (code === undefined ? undefined : reasons[code]) ??
    (/timeout/i.test(message) ? 'no answer in time (a firewall, or the wrong host?)' : undefined);
  if (reason === undefined) return undefined;
  return `cannot use the PostgreSQL store at ${at} (DATABASE_URL): ${reason}`;
}
