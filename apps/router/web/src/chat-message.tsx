import { useEffect, useMemo } from "preact/hooks";
import type { ConsoleMessage } from "../../src/console/console-frames.ts";

// One message of the console chat: its text as written (never as HTML), its buttons, its file.

export function ChatMessage(props: {
  message: ConsoleMessage;
  press: (data: string, messageId: string) => void;
}) {
  const { message } = props;
  return (
    <li class={message.mine ? "message mine" : "message"} data-message={message.id}>
      <div class="text">{message.text}</div>
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

function FileLink({ file }: { file: NonNullable<ConsoleMessage["file"]> }) {
  const url = useMemo(() => {
    if (!file.data_base64) return undefined;
    const bytes = Uint8Array.from(atob(file.data_base64), (c) => c.charCodeAt(0));
    return URL.createObjectURL(new Blob([bytes], { type: file.mime_type ?? "application/octet-stream" }));
  }, [file]);
  useEffect(() => () => (url ? URL.revokeObjectURL(url) : undefined), [url]);
  if (!url) return <div class="muted">(sent while this page was closed)</div>;
  return (
    <div class="file">
      {file.mime_type?.startsWith("image/") ? <img src={url} alt={file.name} /> : null}
      <a href={url} download={file.name}>
        Download {file.name} ({Math.ceil(file.size / 1024)} KB)
      </a>
    </div>
  );
}
