// The plain dialect (the terminal, platforms that show text verbatim): markdown reads well as
// written, so it goes out unchanged.

export const renderPlain = (markdown: string): string => markdown;
