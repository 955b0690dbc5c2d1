import { createInterface } from 'node:readline';
import { hashPassword } from '../passwords/password-hash.js';
import type { Store } from '../store/store.js';

/** Shortest and longest password accepted: long enough to resist guessing, short enough to hash cheaply. */
export const PASSWORD_LENGTH = { min: 8, max: 256 } as const;

/** Why a password is refused, or undefined when it is acceptable. Never repeats the password. */
export function passwordProblem(password: string): string | undefined {
  const length = [...password].length;
  if (length < PASSWORD_LENGTH.min) return `the password must have at least ${PASSWORD_LENGTH.min} characters`;
  if (length > PASSWORD_LENGTH.max) return `the password must have at most ${PASSWORD_LENGTH.max} characters`;
  return undefined;
}

/** Reads one line typed on the terminal without echoing it. */
function askHidden(prompt: string, input: NodeJS.ReadStream, output: NodeJS.WritableStream): Promise<string> {
  output.write(prompt);
  input.setRawMode(true);
  input.setEncoding('utf8');
  input.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = () => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      output.write('\n');
    };
    const onData = (chunk: string) => {
      for (const character of chunk) {
        if (character === '\r' || character === '\n') {
          finish();
          resolve(value);
          return;
        }
        if (character === '\u0003' || character === '\u0004') {
          finish();
          reject(new Error('cancelled'));
          return;
        }
        if (character === '\u007f' || character === '\b') value = [...value].slice(0, -1).join('');
        else value += character;
      }
    };
    input.on('data', onData);
  });
}

/** The first line of standard input, without its line ending. */
async function readFirstLine(input: NodeJS.ReadableStream): Promise<string | undefined> {
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    lines.close();
    return line;
  }
  return undefined;
}

/**
 * `accounts set-password USER`: on a terminal, asks twice without echo; otherwise reads one line
 * from standard input (for scripts). Writes only the scrypt hash. True when the password was set.
 */
export async function setPasswordCommand(
  store: Store,
  username: string,
  input: NodeJS.ReadStream = process.stdin,
  messages: NodeJS.WritableStream = process.stderr,
): Promise<boolean> {
  if (!(await store.accountByUsername(username))) {
    messages.write(`no account named ${JSON.stringify(username)}\n`);
    return false;
  }
  let password: string | undefined;
  if (input.isTTY) {
    password = await askHidden('New password: ', input, messages);
    if ((await askHidden('Again: ', input, messages)) !== password) {
      messages.write('the two passwords differ; nothing was changed\n');
      return false;
    }
  } else {
    password = await readFirstLine(input);
    if (password === undefined) {
      messages.write('no password on standard input; nothing was changed\n');
      return false;
    }
  }
  const problem = passwordProblem(password);
  if (problem !== undefined) {
    messages.write(`${problem}; nothing was changed\n`);
    return false;
  }
  await store.setPasswordHash(username, await hashPassword(password));
  messages.write(`The password of ${JSON.stringify(username)} was set.\n`);
  return true;
}
