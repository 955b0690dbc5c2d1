/** A logger for the limits module that keeps its lines and can wait for one. */
export function recordingLogger() {
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  const write = (level: string) => (message: string) => {
    lines.push(`${level} ${message}`);
    for (const waiter of [...waiters]) {
      if (waiter.pattern.test(`${level} ${message}`)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  return {
    lines,
    info: write('info'),
    warn: write('warn'),
    /** Resolves when a line (`level message`) matching `pattern` is written, or at once if one was already counted `count` times. */
    waitFor(pattern: RegExp, count = 1): Promise<void> {
      if (lines.filter((line) => pattern.test(line)).length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ pattern, resolve }));
    },
  };
}
