/**
 * Where a ledger file's lock lives: beside the file's real path (a symlink or another spelling of
 * the ledger's path resolves to the same lock). Shared by the lock and by the command, which
 * refuses to write an output there.
 */
export const ledgerLockPath = (realPath: string): string => `${realPath}.lock`;
