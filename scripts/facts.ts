/**
 * Where the project's files are, and the names the reference page shows: one copy, read by the
 * scripts (the docs build, the mock, the documents' figures) and by the tests that check them.
 * Figures (sizes, ceilings, goals) are in figures.json.
 */
import { fileURLToPath } from "node:url";

const path = (relative: string): string => fileURLToPath(new URL(`../${relative}`, import.meta.url));

/** The contract: what every generator, the mock and the reference read unless told otherwise. */
export const CONTRACT_PATH = path("openapi/store-admin.yaml");
/** The kitchen-sink contract: every construct the generators serve, in one document. */
export const KITCHEN_SINK_PATH = path("test/kitchen-sink/kitchen-sink.yaml");
/** The rendered API reference. */
export const REFERENCE_PATH = path("docs/reference/index.html");
/** `docs/samples/<operationId>.ts`: one compile-checked sample per operation. */
export const SAMPLES_DIR = path("docs/samples/");
/** The opening of the page, for SDK users; its code blocks are compiled by test/docs/guide.test.ts. */
export const INTRO_PATH = path("docs/reference-intro.md");

/** The tab name of the SDK's samples: the same word as the sample's `label`, so Redoc's keys match. */
export const SAMPLE_LANGUAGE = "TypeScript";
/** The heading under which the contract's own description follows the quick start. */
export const CONTRACT_NOTES_HEADING = "What the specification leaves unstated";
