// Copy, the one control that needs a script: everything else is a plain form.

/**
 * The key and the examples with it, asked for as Show asks (a POST with the page's CSRF token): a
 * masked page never holds the key, so Copy fetches it. Rejects when the server says no.
 */
async function fetchKey(button) {
  const response = await fetch(button.dataset.keyUrl, {
    method: 'POST',
    body: new URLSearchParams({ _csrf: button.dataset.csrf }),
    credentials: 'same-origin',
    headers: { accept: 'application/json' },
  });
  if (!response.ok) throw new Error('the key could not be fetched');
  return response.json();
}

/** The account key's Copy button (the one that can fetch it); null on a page without it. */
const keyButton = () => document.querySelector('button[data-key-url]');

/** Whether the key is shown on the page (after Show, or a new key). */
const keyRevealed = () => document.getElementById('api-key')?.dataset.revealed === 'true';

/**
 * The text to copy, as a promise: what the page shows (a webhook's secret or a new named key,
 * shown once in full; the account key once revealed), else the account key fetched.
 */
function keyToCopy(button) {
  const shown = document.getElementById(button.dataset.copy).textContent.trim();
  if (button.dataset.keyUrl === undefined || keyRevealed()) return Promise.resolve(shown);
  return fetchKey(button).then((answer) => answer.key);
}

/**
 * Writes text the page must first fetch: as a ClipboardItem whose content is a promise, where the
 * browser has it (Safari allows a write only within the click, and the fetch outlasts it), else
 * once it arrives.
 */
async function writeLater(text) {
  if (typeof ClipboardItem !== 'undefined' && navigator.clipboard.write) {
    const blob = text.then((value) => new Blob([value], { type: 'text/plain' }));
    try {
      await navigator.clipboard.write([new ClipboardItem({ 'text/plain': blob })]);
      return;
    } catch {
      // Some browsers take no promise in a ClipboardItem: the text is written once it is here.
    }
  }
  await navigator.clipboard.writeText(await text);
}

/**
 * The button itself says "Copied" (its two words share one cell, so it keeps its width and nothing
 * beside it moves), screen readers hear the status line; a failure is shown there, under the row.
 */
function setUpCopy(button) {
  const status = document.getElementById('copy-status');
  const reset = () => button.classList.remove('done');
  button.hidden = false;
  button.addEventListener('click', async () => {
    status.textContent = '';
    status.classList.remove('failed');
    reset();
    try {
      await writeLater(keyToCopy(button));
      button.classList.add('done');
      status.textContent = button.dataset.copied;
    } catch {
      status.textContent = button.dataset.failed;
      status.classList.add('failed');
    }
  });
  // Back to "Copy" once the seller moves on.
  button.addEventListener('blur', reset);
}

for (const button of document.querySelectorAll('button[data-copy]')) {
  if (navigator.clipboard) setUpCopy(button);
}

/**
 * What a code example's Copy takes, as a promise: while the key is masked (data-example), the
 * example with the key, fetched as the key's Copy fetches it; else the text shown.
 */
function exampleSource(pre) {
  const name = pre.dataset.example;
  return () => {
    const button = keyButton();
    if (name === undefined || button === null || keyRevealed()) return Promise.resolve(pre.textContent.trim());
    return fetchKey(button).then((answer) => answer.examples[name].trim());
  };
}

/**
 * Without the clipboard API (or its permission): the browser's own copy command over a hidden
 * text area holding the example. Says whether it copied.
 */
function copyByCommand(text) {
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'sr-only';
  document.body.append(area);
  area.select();
  let copied = false;
  try {
    copied = document.execCommand('copy');
  } catch {
    copied = false;
  }
  area.remove();
  return copied;
}

/** Both refused: the example is selected, for the reader's own shortcut. */
function selectExample(pre) {
  const selection = window.getSelection();
  selection.removeAllRanges();
  const range = document.createRange();
  range.selectNodeContents(pre);
  selection.addRange(range);
}

/** A Copy button above each code example; the texts come from the page, in its language. */
function addExampleCopy(pre, index) {
  const { copy, copied, copyManually } = document.body.dataset;
  const tools = document.createElement('div');
  tools.className = 'code-tools';
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'button';
  button.textContent = copy;
  // Named after its example ("Copy curl"): a page has several, and the key's own Copy is "Copy".
  const title = pre.previousElementSibling;
  const what = title?.classList.contains('code-title') ? title.textContent.trim() : `${index + 1}`;
  const label = (word) => `${word} ${what}`;
  button.setAttribute('aria-label', label(copy));
  const exampleText = exampleSource(pre);
  const status = document.createElement('p');
  status.className = 'code-status';
  status.setAttribute('role', 'status');
  // On the example's title row when it has one ("curl  [Copy]"), else above it.
  if (title?.classList.contains('code-title')) {
    title.before(tools);
    tools.append(title, button);
  } else {
    tools.append(button);
    pre.before(tools);
  }
  pre.after(status);
  button.addEventListener('click', async () => {
    const text = exampleText();
    let done = false;
    try {
      await writeLater(text);
      done = true;
    } catch {
      // Never the masked text in place of the key: a failed fetch copies nothing.
      const value = await text.catch(() => undefined);
      done = value !== undefined && copyByCommand(value);
    }
    if (!done) selectExample(pre);
    button.textContent = done ? copied : copy;
    button.setAttribute('aria-label', label(done ? copied : copy));
    status.textContent = done ? copied : copyManually;
  });
  button.addEventListener('blur', () => {
    button.textContent = copy;
    button.setAttribute('aria-label', label(copy));
  });
}

document.querySelectorAll('pre.code').forEach(addExampleCopy);
