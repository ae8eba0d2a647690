import type { HostWorkerFrame } from "@phonework/protocol";
import type { FrameTable } from "../contracts/node-frames.ts";
import type { WorkerRelay } from "./worker-relay.ts";

/** Master/Worker frames: every one goes to the relay, which knows who may send it where. */
export function workerFrames(relay: Pick<WorkerRelay, "receive">): FrameTable<HostWorkerFrame> {
  return ({ nodeId }) => {
    const receive = (frame: HostWorkerFrame) => relay.receive(nodeId, frame);
    return {
      worker_task: receive,
      worker_status: receive,
      worker_result: receive,
      worker_result_ack: receive,
      worker_cancel: receive,
    };
  };
}
