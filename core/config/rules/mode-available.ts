import { modeOptions } from "../modes.ts";
import type { Rule } from "./rule.ts";

export const modeAvailable: Rule = (draft, ctx) => {
  const option = modeOptions(ctx).find((o) => o.mode === draft.mode);
  if (!option || option.available) return [];
  const others = modeOptions(ctx).filter((o) => o.available).map((o) => ctx.names.mode(o.mode));
  return [
    {
      path: ["mode"],
      message: `mode ${ctx.names.mode(option.mode)} is not available: ${option.reason}`,
      hint: others.length > 0 ? `available on this host: ${others.join(", ")}` : undefined,
    },
  ];
};
