/** The exit codes every command and CI template relies on. */
export const EXIT = {
  /** Nothing blocks (INFO findings never change this). */
  ok: 0,
  /** At least one BLOCK finding. */
  blocked: 1,
  /** Could not judge: bad input, bad ref, unreadable file, internal error. Never a pass. */
  cannotJudge: 2,
  /** tcr only: five strikes in a row, stop and ask a human. */
  stop: 3,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
