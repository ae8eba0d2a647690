import protobuf from "protobufjs";

// The long connection's wire format: Feishu's `pbbp2.Frame` (proto2). Defined here independently of
// the SDK's bundled copy, so a mismatch between the two shows up as a failing test, not a shared bug.

export const FrameMethod = { control: 0, data: 1 } as const;

export interface FrameHeader {
  key: string;
  value: string;
}

export interface Frame {
  SeqID: number;
  LogID: number;
  service: number;
  method: number;
  headers: FrameHeader[];
  payloadEncoding?: string;
  payloadType?: string;
  payload?: Uint8Array;
  LogIDNew?: string;
}

const root = protobuf.Root.fromJSON({
  nested: {
    pbbp2: {
      nested: {
        Header: {
          fields: {
            key: { rule: "required", type: "string", id: 1 },
            value: { rule: "required", type: "string", id: 2 },
          },
        },
        Frame: {
          fields: {
            SeqID: { rule: "required", type: "uint64", id: 1 },
            LogID: { rule: "required", type: "uint64", id: 2 },
            service: { rule: "required", type: "int32", id: 3 },
            method: { rule: "required", type: "int32", id: 4 },
            headers: { rule: "repeated", type: "Header", id: 5 },
            payloadEncoding: { type: "string", id: 6 },
            payloadType: { type: "string", id: 7 },
            payload: { type: "bytes", id: 8 },
            LogIDNew: { type: "string", id: 9 },
          },
        },
      },
    },
  },
});
const FrameType = root.lookupType("pbbp2.Frame");

export function encodeFrame(frame: Frame): Uint8Array {
  return FrameType.encode(FrameType.fromObject(frame)).finish();
}

export function decodeFrame(bytes: Uint8Array): Frame {
  const message = FrameType.decode(bytes);
  return FrameType.toObject(message, { longs: Number, arrays: true, defaults: false }) as Frame;
}

export const frameHeader = (frame: Frame, key: string): string | undefined =>
  frame.headers.find((header) => header.key === key)?.value;

export const jsonPayload = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

export const parsePayload = (payload: Uint8Array | undefined): unknown =>
  payload?.length ? JSON.parse(new TextDecoder().decode(payload)) : undefined;
