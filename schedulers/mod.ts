// evtsim's scheduling policies: pickers (the order in which waiting jobs are
// offered) and admission policies (which offered jobs start now), and the
// registry that hands them to the core by name.

export { conservativeBackfill, easyBackfill, noBackfill } from "./admission.ts";
export { builtinFcfs } from "./builtin_fcfs.ts";
export {
  conservativeProfileBackfill,
  conservativeProfileNoCompression,
} from "./conservative_profile.ts";
export { easyExtraBackfill } from "./easy_extra.ts";
export {
  fairshareFactors,
  fairsharePicker,
  type FairshareState,
  type FairshareUsage,
  rankFairshare,
} from "./fairshare.ts";
export {
  type FairshareSettings,
  type ResolvedFairshare,
  resolveFairshare,
} from "./fairshare_settings.ts";
export { limitOrderPicker } from "./limit_order_picker.ts";
export { orderedPicker, type OrderedPickerOptions } from "./ordered_picker.ts";
export { defaultRegistry, withPolicies } from "./registry.ts";
