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
