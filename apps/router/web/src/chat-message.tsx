import { useEffect, useMemo } from "preact/hooks";
import type { ConsoleMessage } from "../../src/console/console-frames.ts";
import { DOWNLOAD_TYPE, rasterImageType } from "../../src/console/file-type.ts";
import { textBlocks } from "../../src/console/text-blocks.ts";

// One message of the console chat: its text as written (never as HTML), fenced blocks (command
// output, screens) in monospace that scrolls sideways, its buttons, its file (a download; shown
// inline only if its bytes are a raster image: see file-type.ts).

export function ChatMessage(props: {
  message: ConsoleMessage;
  press: (data: string, messageId: string) => void;
}) {
  const { message } = props;
  return (
    <li class={message.mine ? "message mine" : "message"} data-message={message.id}>
      <MessageText text={message.text} />
      {message.file ? <FileLink file={message.file} /> : null}
      {message.buttons?.map((row) => (
        <div class="buttons" key={row.map((button) => button.data).join()}>
          {row.map((button) => (
            <button type="button" key={button.data} onClick={() => props.press(button.data, message.id)}>
              {button.label}
            </button>
          ))}
        </div>
      ))}
    </li>
  );
}

function MessageText({ text }: { text: string }) {
  const blocks = useMemo(() => textBlocks(text), [text]);
  return (
    <div class="text">
      {blocks.map((block, index) =>
        // Focusable, so a keyboard can scroll a long line sideways too.
        block.kind === "code" ? (
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take the focus to be scrolled by keys
          <pre key={index} tabIndex={0}>
            {block.text}
          </pre>
        ) : (
          <div key={index}>{block.text}</div>
        ),
      )}
    </div>
  );
}

function FileLink({ file }: { file: NonNullable<ConsoleMessage["file"]> }) {
  // The type the host claimed (and the one the router sends) is never used: the bytes decide.
  const urls = useMemo(() => {
    if (!file.data_base64) return undefined;
    const bytes = Uint8Array.from(atob(file.data_base64), (c) => c.charCodeAt(0));
    const image = rasterImageType(bytes);
    return {
      // Opaque bytes, however the link is opened (clicked, or "open in new tab"): saved, never rendered.
      download: URL.createObjectURL(new Blob([bytes], { type: DOWNLOAD_TYPE })),
      image: image ? URL.createObjectURL(new Blob([bytes], { type: image })) : undefined,
    };
  }, [file]);
  useEffect(
    () => () => {
      if (urls?.image) URL.revokeObjectURL(urls.image);
      if (urls) URL.revokeObjectURL(urls.download);
    },
    [urls],
  );
  if (!urls) return <div class="muted">(sent while this page was closed)</div>;
  return (
    <div class="file">
      {urls.image ? <img src={urls.image} alt={file.name} /> : null}
      <a href={urls.download} download={file.name}>
        Download {file.name} ({Math.ceil(file.size / 1024)} KB)
      </a>
    </div>
  );
}
