/**
 * The checkpoint of a `paginate()` walk: the ledger's cursor moves past every page whose items
 * are all done (or skipped as done), in order, after the ends recorded before it.
 */
import { stopRun, type Fate, type RunState } from "./run-state.js";
import type { Ledger } from "./types.js";

/** A page of a walk, as far as the checkpoint is concerned. */
export interface PageTrack {
  /** Items of the page not yet finished. */
  remaining: number;
  /** An item of the page failed or is in doubt: the checkpoint stops before this page. */
  blocked: boolean;
  nextCursor: string | null;
}

export interface WalkCheckpoint {
  /** The pages pulled and not yet past the checkpoint, oldest first. */
  readonly pages: PageTrack[];
  /** Moves the checkpoint past the leading pages that are all done. */
  advance(): void;
  /** An item is dealt with: counted, and its page (of a walk) is one item nearer its checkpoint. */
  itemSettled(page: PageTrack | undefined, fate: Fate): void;
  /** Resolves once every checkpoint asked for is written (a failure to write stops the run). */
  written(): Promise<void>;
}

export function walkCheckpoint(state: RunState, ledger: Ledger): WalkCheckpoint {
  const pages: PageTrack[] = [];
  let checkpointing = Promise.resolve();
  const advance = (): void => {
    let cursor: string | null | undefined;
    while (pages.length > 0 && pages[0]!.remaining === 0 && !pages[0]!.blocked) cursor = pages.shift()!.nextCursor;
    if (cursor === undefined) return;
    const moved = cursor;
    // In order, after the ends recorded before it.
    checkpointing = checkpointing.then(() => ledger.checkpoint(moved)).catch((error: unknown) => stopRun(state, error));
  };
  return {
    pages,
    advance,
    itemSettled(page, fate) {
      state.handled++;
      if (!page) return;
      page.remaining--;
      if (fate !== "done" && fate !== "skipped") page.blocked = true;
      advance();
    },
    written: () => checkpointing,
  };
}
