/**
 * How many executes run at once (`maxExecutes`), with a bounded queue behind them: past the
 * queue an execute is refused at once, so that a burst of them can neither exhaust the server
 * nor make every agent wait without end.
 */

/** How many executes may wait for a place. */
export const EXECUTE_QUEUE = 16;

interface ExecuteGate {
  /** A function that frees the place once one is taken, or `undefined` at once when the queue is full. */
  enter(signal: AbortSignal): Promise<() => void> | undefined;
}

export function executeGate(max: number, queue = EXECUTE_QUEUE): ExecuteGate {
  let running = 0;
  const waiting: Array<() => void> = [];
  const leave = () => {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  };
  return {
    enter(signal) {
      if (running < max) {
        running += 1;
        return Promise.resolve(once(leave));
      }
      if (waiting.length >= queue) return undefined;
      return new Promise((resolve, reject) => {
        const start = () => {
          signal.removeEventListener("abort", cancel);
          resolve(once(leave));
        };
        // A request its client cancelled gives its place in the queue up.
        const cancel = () => {
          const at = waiting.indexOf(start);
          if (at >= 0) waiting.splice(at, 1);
          reject(signal.reason);
        };
        signal.addEventListener("abort", cancel, { once: true });
        waiting.push(start);
      });
    },
  };
}

const once = (leave: () => void): (() => void) => {
  let left = false;
  return () => {
    if (left) return;
    left = true;
    leave();
  };
};
