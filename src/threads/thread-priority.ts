import { readlinkSync } from 'node:fs';
import { constants, setPriority } from 'node:os';

/**
 * Gives the calling thread the lowest CPU priority, so that the kernel runs the threads answering
 * requests first whenever both want a core. Linux takes a thread's id where `setpriority` asks for
 * a process's, and `/proc/thread-self` names the calling thread's; elsewhere (or if either is
 * refused) nothing changes. Lowering a priority needs no privilege. True when it was lowered.
 */
export function lowerThreadPriority(): boolean {
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
    if (!Number.isSafeInteger(threadId) || threadId <= 0) return false;
    setPriority(threadId, constants.priority.PRIORITY_LOW);
    return true;
  } catch {
    return false;
  }
}
