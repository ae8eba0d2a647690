import { UsageLimitReached, type UsageMeter, type UsageTag } from "../contracts/usage-meter.ts";
import type { ModelClient, ModelReply } from "./model-client.ts";

// A model client that counts: each call is checked against the limits first (refused with
// UsageLimitReached, the model not called) and its reported usage recorded with `tag`, its cost
// added to the reply. `spent` sums what this client's calls used (a turn's footer).

export interface MeteredModel extends ModelClient {
  readonly spent: { input: number; output: number; costUsd: number; priced: boolean; calls: number };
}

export function meteredModel(model: ModelClient, meter: UsageMeter, tag: UsageTag): MeteredModel {
  const spent = { input: 0, output: 0, costUsd: 0, priced: true, calls: 0 };
  return {
    spent,
    async complete(request): Promise<ModelReply> {
      const refused = meter.refusal(tag);
      if (refused) throw new UsageLimitReached(refused);
      const reply = await model.complete(request);
      if (!reply.usage) return reply;
      const { usage } = reply;
      const counted = meter.record(tag, {
        model: usage.model ?? "unknown",
        input: usage.input,
        cachedInput: usage.cachedInput ?? 0,
        output: usage.output,
      });
      spent.calls++;
      spent.input += counted.input;
      spent.output += counted.output;
      if (counted.costUsd === undefined) spent.priced = false;
      else spent.costUsd += counted.costUsd;
      return {
        ...reply,
        usage: {
          ...usage,
          input: counted.input,
          output: counted.output,
          ...(counted.costUsd === undefined ? {} : { costUsd: counted.costUsd }),
        },
      };
    },
  };
}
