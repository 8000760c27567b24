// What `conservative` means, said where a user picks policies (simulate's,
// compare's and sweep's help, compare's table): DR_EVT's conservative rule,
// which is far stricter than the textbook conservative backfilling most
// papers compare EASY against, so an "EASY vs conservative" study run with
// it comes out backwards (docs/policies.md, the warning under the table).

/** The note, as help lines (no indent). */
export const CONSERVATIVE_NOTE: readonly string[] = [
  "conservative is DR_EVT's conservative rule: a backfilled job must end before the",
  "reservation of every job ahead of it, far stricter than textbook conservative",
  "backfilling (KTH log: 38,687 s average wait, against 8,285 s for easy and 7,006 s for",
  "conservative_profile). Textbook conservative backfilling is conservative_profile",
  "(--admission conservative_profile).",
];

/** Whether a policy name (ADMISSION or PICKER+ADMISSION) runs DR_EVT's conservative rule. */
export function isDrEvtConservative(policy: string): boolean {
  return policy.split("+").at(-1) === "conservative";
}
