// Feishu card markdown (lark_md): Feishu renders the markdown itself, so it goes out as written,
// as card.ts has always sent it. Nothing needs escaping here: the card is built as an object and
// serialised as JSON, which keeps any quote, brace or newline inside the element's `content`.

export const renderFeishuMd = (markdown: string): string => markdown;
