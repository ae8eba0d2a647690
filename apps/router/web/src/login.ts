// The login link's page: exchanges the code at once (a POST, so link previews cannot use it up).
// Without scripts the page's button does the same.

const form = document.getElementById("login");
if (form instanceof HTMLFormElement) form.submit();
