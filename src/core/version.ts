/** The SDK's version (kept equal to package.json's by test/smoke.test.ts). */
export const VERSION = "0.3.0";
