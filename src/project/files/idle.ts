/**
 * How many writes in a row may leave a cached parse or a file stamp unused
 * before it is dropped: enough for an agent's alternating runs (one test
 * alone, then the suite; check, then unit), few enough that what belongs to
 * files long since edited does not pile up.
 */
export const KEEP_IDLE_SAVES = 20;
