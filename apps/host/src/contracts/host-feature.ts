import type { ForwardFrame, FrameHandlers, HostBoundFrame } from "@phonework/protocol";
import type { HostCommand } from "./host-command.ts";
import type { Tool } from "./tool.ts";

// The one shape of a host feature (coding sessions, background tasks, schedule, workers,
// terminals, overview, the workspace's parts…). createHost installs features in order, starts
// them in that order and stops them in reverse, as fastify does with plugins. A feature owns its
// tools, its chat commands and the frames it handles; nothing outside its folder builds them.

export type HostFeature<Handled extends HostBoundFrame["type"] = never> = FeatureParts &
  ([Handled] extends [never]
    ? unknown
    : {
        /** The frames from the router this feature handles (a frame type has exactly one owner). */
        readonly frames: FrameHandlers<Extract<HostBoundFrame, { type: Handled }>>;
      });

/** What any feature may offer. */
export interface FeatureParts {
  readonly name: string;
  /** Tools for the assistant and for workers of a plan. */
  readonly tools?: readonly Tool[];
  /** Tools for the assistant only (a chat's memory, its skills, delegation). */
  readonly assistantTools?: readonly Tool[];
  /** Assistant tools that come and go while the host runs (the workspace's custom tools). */
  liveTools?(): readonly Tool[];
  readonly commands?: readonly HostCommand[];
  /** What the node can do, as the router is told at each registration. */
  capabilities?(): readonly string[];
  /** What the feature adds to the assistant's system prompt for a request's chat. */
  promptSection?(request: ForwardFrame): string | undefined;
  start?(host: FeatureHost): void;
  stop?(): void | Promise<void>;
}

/** What a started feature may ask of the host. */
export interface FeatureHost {
  /** What the node can do changed (node-pty loaded late): the router hears of it once registered. */
  capabilitiesChanged(): void;
}

/** Every tool the features offer the assistant (their shared tools and their assistant-only ones). */
export const featureTools = (features: readonly HostFeature[]) =>
  features.flatMap((feature) => [...(feature.tools ?? []), ...(feature.assistantTools ?? [])]);
