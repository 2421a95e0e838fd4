/**
 * The one way the client reaches what it needs only when a call fails or a logger is set
 * (`off-path.ts`). `import()` resolves the module once; later calls reuse it. Not exported
 * from the package.
 */
export const loadOffPath = () => import("./off-path.js");

/** The module {@link loadOffPath} resolves to. */
export type OffPath = Awaited<ReturnType<typeof loadOffPath>>;
