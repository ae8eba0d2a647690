// The terminal (xterm.js) adds <style> elements of its own; the page's CSP admits only those that
// carry this response's nonce. Each <style> the document creates is stamped with it at creation,
// before it is inserted (later would be too late for the browser to honour it).

export function stampStyleNonces(doc: Document = document): void {
  const nonce = doc.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content;
  if (!nonce) return;
  const create = doc.createElement.bind(doc);
  doc.createElement = ((tagName: string, options?: ElementCreationOptions) => {
    const element = create(tagName, options);
    if (element instanceof HTMLStyleElement) element.setAttribute("nonce", nonce);
    return element;
  }) as Document["createElement"];
}
