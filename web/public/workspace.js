// Copy, the one control that needs a script: everything else is a plain form.

/**
 * The key to copy: the revealed text, or, while masked, the inert <template> beside it (the page's
 * Content-Security-Policy allows no fetch, so the key has to be in the page for Copy to work).
 */
function keyToCopy(button) {
  const target = document.getElementById(button.dataset.copy);
  if (target.dataset.revealed === 'true') return target.textContent.trim();
  return document.getElementById(`${button.dataset.copy}-value`).content.textContent.trim();
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
      await navigator.clipboard.writeText(keyToCopy(button));
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
 * What a code example's Copy takes: the <template class="copy-source"> right after it (the example
 * with the key itself, while the page shows it masked), else the text shown.
 */
function exampleSource(pre) {
  const next = pre.nextElementSibling;
  const source = next?.tagName === 'TEMPLATE' && next.classList.contains('copy-source') ? next : undefined;
  return () => (source ? source.content.textContent : pre.textContent).trim();
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
      await navigator.clipboard.writeText(text);
      done = true;
    } catch {
      done = copyByCommand(text);
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
